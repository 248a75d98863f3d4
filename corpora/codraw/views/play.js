// CoDraw's game on the Play page (corpora/codraw/views/play.py; the shell is ui/assets/play.js): the Drawer's
// 500 x 400 canvas (data-play-canvas) and the clip-art palette grouped as in the original (each piece
// data-clipart="<its png file name>"; Mike's and Jenny's 35 poses and expressions each). Drag a piece from the
// palette onto the canvas, drag a piece on the canvas to move it; the piece last touched is selected (a click, or
// Tab / Shift+Tab through the pieces): Flip (F), Large / Medium / Small (1 / 2 / 3), Bring forward / Send back
// (PageUp / PageDown), Remove (Delete), arrows move it by a pixel (Shift: ten). Positions are whole pixels of the
// canvas, centres as the scene string keeps them. Everything is drawn in the browser: no request until Done.
// Without the clip-art folder the pieces are drawn as the art-free rendition (a box in the category's colour with
// the piece's name, as the Replay draws them).
function createGame(area, shell) {
  const box = el('div', 'cd-play');
  const left = el('div', 'cd-left');
  const canvas = el('div', 'cd-canvas');
  canvas.setAttribute('data-play-canvas', '');
  const toolbar = el('div', 'cd-tools');
  const status = el('div', 'cd-status');
  status.setAttribute('aria-live', 'polite');
  left.append(canvas, toolbar, status);
  const right = el('div', 'cd-right');
  const chat = el('div', 'cd-chat');
  const palette = el('div', 'cd-palette');
  right.append(chat, palette);
  box.append(left, right);
  area.appendChild(box);

  const g = { setup: null, pieces: {}, items: [], selected: null, drag: null, scales: [1, 0.7, 0.49], w: 500, h: 400 };
  const tools = {};
  [['flip', 'Flip (F)'], ['large', 'Large (1)'], ['medium', 'Medium (2)'], ['small', 'Small (3)'],
   ['forward', 'Bring forward (PgUp)'], ['back', 'Send back (PgDn)'], ['remove', 'Remove (Del)']].forEach(([name, label]) => {
    const b = el('button', `cd-tool cd-${name}`, label);
    b.type = 'button';
    b.setAttribute('data-tool', name);
    b.onclick = (event) => act(name, event);
    toolbar.appendChild(b);
    tools[name] = b;
  });

  function pieceKey(type, object) { return `${type}:${object}`; }
  function identityOf(piece) { return piece.identity; }

  function size(item) {
    const piece = g.pieces[pieceKey(item.type, item.object)];
    const scale = g.scales[item.z] || 1;
    return [Math.max(1, Math.round(piece.w * scale)), Math.max(1, Math.round(piece.h * scale))];
  }

  // A piece's look: its part of the clip-art atlas (one picture of every piece), or the art-free rendition (a box in
  // its category's colour with its short name); ``paint`` scales it to the size it is drawn at
  function look(piece, node) {
    node.textContent = '';
    if (piece.sprite && g.setup.atlas) {
      const sprite = el('div', 'cd-sprite');
      sprite.style.backgroundImage = `url("${g.setup.atlas}")`;
      sprite.setAttribute('role', 'img');
      sprite.setAttribute('aria-label', piece.label);
      node.appendChild(sprite);
    } else {
      const stand = el('div', `cd-stand cd-type-${piece.type}`);
      stand.style.setProperty('--cd-colour', (g.setup.colours || {})[String(piece.type)] || '#999');
      stand.appendChild(el('span', 'cd-stand-label', piece.short));
      node.appendChild(stand);
    }
  }

  function paint(piece, node, w, h) {
    const sprite = node.firstChild;
    if (!piece.sprite || !sprite || !sprite.classList.contains('cd-sprite')) return;
    const [sx, sy, sw, sh] = piece.sprite;
    const [aw, ah] = g.setup.atlas_size;
    const kx = w / sw, ky = h / sh;
    sprite.style.backgroundSize = `${aw * kx}px ${ah * ky}px`;
    sprite.style.backgroundPosition = `${-sx * kx}px ${-sy * ky}px`;
  }

  // the drawing order of the original viewer: the sky first, then far to near (small to large), the scene's order
  // within one depth
  function order() {
    return g.items.map((item, index) => ({ item, index }))
      .sort((a, b) => ((a.item.type !== 0) - (b.item.type !== 0)) || (b.item.z - a.item.z) || (a.index - b.index));
  }

  function place(item) {
    const [w, h] = size(item);
    const node = item.node;
    if (node.dataset.w !== String(w) || node.dataset.h !== String(h)) {  // a new size: the sprite is scaled again
      node.style.width = `${w}px`;
      node.style.height = `${h}px`;
      node.dataset.w = String(w);
      node.dataset.h = String(h);
      paint(g.pieces[pieceKey(item.type, item.object)], node, w, h);
    }
    node.style.transform = `translate(${item.x - w / 2}px, ${item.y - h / 2}px)${item.flip ? ' scaleX(-1)' : ''}`;
    node.setAttribute('data-x', String(item.x));
    node.setAttribute('data-y', String(item.y));
    node.setAttribute('data-z', String(item.z));
    node.setAttribute('data-flip', String(item.flip));
    node.setAttribute('aria-label', `${g.pieces[pieceKey(item.type, item.object)].label} at ${item.x}, ${item.y}`);
  }

  function restack() {
    order().forEach(({ item }, rank) => { item.node.style.zIndex = String(rank + 1); });
  }

  function makeNode(item) {
    const piece = g.pieces[pieceKey(item.type, item.object)];
    const node = el('div', 'cd-item');
    node.tabIndex = 0;
    node.setAttribute('role', 'button');
    node.setAttribute('data-clipart', piece.png);
    node.setAttribute('data-identity', String(piece.identity));
    look(piece, node);
    node.addEventListener('pointerdown', (event) => startMove(item, event));
    node.addEventListener('focus', () => select(item));
    item.node = node;
    return node;
  }

  function select(item) {
    if (g.selected === item) return;
    if (g.selected && g.selected.node) g.selected.node.classList.remove('cd-selected');
    g.selected = item;
    if (item) item.node.classList.add('cd-selected');
    Object.values(tools).forEach((b) => { b.disabled = !item; });
    status.textContent = item ? `Selected: ${g.pieces[pieceKey(item.type, item.object)].label} at ${item.x}, ${item.y}` : 'Drag a piece from the palette onto the canvas.';
  }

  function clampReach(x, y) {
    const reach = g.setup.reach || { x: [-500, 1000], y: [-400, 800] };
    return [Math.min(reach.x[1], Math.max(reach.x[0], x)), Math.min(reach.y[1], Math.max(reach.y[0], y))];
  }

  function add(piece, x, y, event) {
    // one of each clip art: Mike in another pose or expression replaces Mike
    const existing = g.items.findIndex((item) => g.pieces[pieceKey(item.type, item.object)].identity === identityOf(piece));
    let item;
    if (existing >= 0) {
      item = g.items[existing];
      item.node.remove();
      item.type = piece.type;
      item.object = piece.object;
    } else {
      item = { type: piece.type, object: piece.object, z: 0, flip: 0 };
      g.items.push(item);
    }
    [item.x, item.y] = clampReach(x, y);
    canvas.appendChild(makeNode(item));
    place(item);
    restack();
    g.selected = null;
    select(item);
    item.node.focus({ preventScroll: true });
    shell.measure(event);
    shell.changed();
  }

  function canvasPoint(event) {
    const rect = canvas.getBoundingClientRect();
    return [Math.round(event.clientX - rect.left), Math.round(event.clientY - rect.top)];
  }

  function startMove(item, event) {
    if (event.button !== 0) return;
    event.preventDefault();
    event.stopPropagation();
    select(item);
    item.node.focus({ preventScroll: true });
    g.drag = { kind: 'move', item, startX: item.x, startY: item.y, downX: event.clientX, downY: event.clientY };
    try { item.node.setPointerCapture(event.pointerId); } catch (e) { /* a synthetic pointer: nothing to capture */ }
  }

  function startPalette(piece, event) {
    if (event.button !== 0) return;
    event.preventDefault();
    const ghost = el('div', 'cd-ghost');
    look(piece, ghost);
    const [w, h] = [Math.round(piece.w * 0.5), Math.round(piece.h * 0.5)];
    ghost.style.width = `${w}px`;
    ghost.style.height = `${h}px`;
    paint(piece, ghost, w, h);
    document.body.appendChild(ghost);
    g.drag = { kind: 'new', piece, ghost, w, h };
    moveGhost(event);
    try { event.target.setPointerCapture(event.pointerId); } catch (e) { /* nothing to capture */ }
  }

  function moveGhost(event) {
    const d = g.drag;
    d.ghost.style.transform = `translate(${event.clientX - d.w / 2}px, ${event.clientY - d.h / 2}px)`;
  }

  // no text selected while a piece is dragged (a pointer's default would start one)
  box.addEventListener('mousedown', (event) => { if (event.target.closest('.cd-piece, .cd-item')) event.preventDefault(); });
  document.addEventListener('selectstart', (event) => { if (g.drag) event.preventDefault(); });

  document.addEventListener('pointermove', (event) => {
    const d = g.drag;
    if (!d || !box.isConnected) return;
    if (d.kind === 'new') { moveGhost(event); shell.measure(event); return; }
    const [x, y] = clampReach(Math.round(d.startX + event.clientX - d.downX), Math.round(d.startY + event.clientY - d.downY));
    d.item.x = x;
    d.item.y = y;
    place(d.item);
    shell.measure(event);
  });

  document.addEventListener('pointerup', (event) => {
    const d = g.drag;
    if (!d || !box.isConnected) return;
    g.drag = null;
    if (d.kind === 'new') {
      d.ghost.remove();
      const rect = canvas.getBoundingClientRect();
      const inside = event.clientX >= rect.left && event.clientX <= rect.right && event.clientY >= rect.top && event.clientY <= rect.bottom;
      if (inside) {
        const [x, y] = canvasPoint(event);
        add(d.piece, x, y, event);
      }
      return;
    }
    select(d.item);
    status.textContent = `Moved to ${d.item.x}, ${d.item.y}`;
    shell.changed();
  });

  function act(name, event) {
    const item = g.selected;
    if (!item) return;
    if (name === 'flip') item.flip = 1 - item.flip;
    else if (name === 'large') item.z = 0;
    else if (name === 'medium') item.z = 1;
    else if (name === 'small') item.z = 2;
    else if (name === 'forward' || name === 'back') {
      const index = g.items.indexOf(item);
      const to = name === 'forward' ? Math.min(g.items.length - 1, index + 1) : Math.max(0, index - 1);
      g.items.splice(index, 1);
      g.items.splice(to, 0, item);
      const before = g.items[to + 1] ? g.items[to + 1].node : null;
      canvas.insertBefore(item.node, before);  // the keyboard's order follows the scene's
      item.node.focus({ preventScroll: true });
    } else if (name === 'remove') {
      g.items.splice(g.items.indexOf(item), 1);
      item.node.remove();
      select(null);
      restack();
      shell.measure(event);
      shell.changed();
      return;
    }
    place(item);
    restack();
    select(item);
    status.textContent = `${g.pieces[pieceKey(item.type, item.object)].label}: ${['large', 'medium', 'small'][item.z]}${item.flip ? ', flipped' : ''}`;
    shell.measure(event);
    shell.changed();
  }

  function nudge(dx, dy, event) {
    const item = g.selected;
    [item.x, item.y] = clampReach(item.x + dx, item.y + dy);
    place(item);
    status.textContent = `Moved to ${item.x}, ${item.y}`;
    shell.measure(event);
  }

  function buildPalette(setup) {
    palette.textContent = '';
    g.pieces = {};
    setup.groups.forEach((group) => {
      const section = el('details', 'cd-group');
      section.open = !group.people;
      const summary = el('summary', null, group.title);
      section.appendChild(summary);
      const grid = el('div', group.people ? 'cd-pieces cd-people' : 'cd-pieces');
      group.pieces.forEach((piece) => {
        g.pieces[pieceKey(piece.type, piece.object)] = piece;
        const node = el('div', 'cd-piece');
        node.setAttribute('data-clipart', piece.png);
        node.title = piece.label;
        look(piece, node);
        const fit = Math.min(46 / piece.w, 46 / piece.h);
        const thumb = node.firstChild;
        thumb.style.width = `${Math.round(piece.w * fit)}px`;
        thumb.style.height = `${Math.round(piece.h * fit)}px`;
        paint(piece, node, Math.round(piece.w * fit), Math.round(piece.h * fit));
        node.addEventListener('pointerdown', (event) => startPalette(piece, event));
        grid.appendChild(node);
      });
      section.appendChild(grid);
      palette.appendChild(section);
    });
  }

  function background(setup) {
    canvas.style.width = `${g.w}px`;
    canvas.style.height = `${g.h}px`;
    canvas.classList.toggle('cd-art', Boolean(setup.background));
    canvas.style.backgroundImage = setup.background ? `url("${setup.background}")` : '';
  }

  function showChat(lines) {
    chat.textContent = '';
    (lines || []).forEach((line) => {
      const round = el('div', 'cd-round');
      round.appendChild(el('div', 'cd-round-title', `Round ${line.round}${line.peeked ? ' · the Teller peeked at the human Drawer\'s canvas here' : ''}`));
      const teller = el('div', 'cd-teller');
      teller.append(el('b', null, 'Teller: '), document.createTextNode(line.teller));
      round.appendChild(teller);
      if (line.drawer !== null && line.drawer !== undefined) {
        const drawer = el('div', 'cd-drawer');
        drawer.append(el('b', null, 'The recorded Drawer: '), document.createTextNode(line.drawer));
        round.appendChild(drawer);
      }
      if (line.reply) {
        const mine = el('div', 'cd-mine');
        mine.append(el('b', null, 'You: '), document.createTextNode(line.reply));
        round.appendChild(mine);
      }
      chat.appendChild(round);
    });
    chat.scrollTop = chat.scrollHeight;
  }

  function setItems(list) {
    canvas.querySelectorAll('.cd-item').forEach((node) => node.remove());
    g.items = (list || []).filter((p) => g.pieces[pieceKey(p.type, p.object)]).map((p) => ({ ...p }));
    g.items.forEach((item) => { canvas.appendChild(makeNode(item)); place(item); });
    restack();
    g.selected = null;
    select(null);
  }

  return {
    load(setup) {
      g.setup = setup;
      [g.w, g.h] = setup.canvas || [500, 400];
      g.scales = setup.scales || g.scales;
      buildPalette(setup);
      background(setup);
    },
    show(view) {
      setItems(view.canvas);
      showChat(view.lines);
    },
    move() {
      return { canvas: g.items.map(({ type, object, x, y, z, flip }) => ({ type, object, x, y, z, flip })) };
    },
    ready() { return true; },
    human(panel, move) {
      const mini = el('div', 'cd-canvas cd-mini');
      mini.style.width = `${g.w}px`;
      mini.style.height = `${g.h}px`;
      if (g.setup.background) { mini.classList.add('cd-art'); mini.style.backgroundImage = `url("${g.setup.background}")`; }
      const saved = g.items;
      const items = ((move && move.canvas) || []).filter((p) => g.pieces[pieceKey(p.type, p.object)]).map((p) => ({ ...p }));
      g.items = items;
      items.forEach((item) => {
        const node = el('div', 'cd-item');
        look(g.pieces[pieceKey(item.type, item.object)], node);
        item.node = node;
        mini.appendChild(node);
        place(item);
      });
      restack();
      g.items = saved;
      const frame = el('div', 'cd-mini-frame');
      frame.appendChild(mini);
      panel.appendChild(frame);
      if (move && move.reply) panel.appendChild(el('div', 'cd-mine', `The human Drawer replied: ${move.reply}`));
    },
    key(event) {
      if (event.ctrlKey || event.metaKey || event.altKey || !g.selected) return;
      if (!box.contains(event.target) && event.target !== document.body) return;
      const step = event.shiftKey ? 10 : 1;
      const keys = {
        ArrowLeft: () => nudge(-step, 0, event), ArrowRight: () => nudge(step, 0, event),
        ArrowUp: () => nudge(0, -step, event), ArrowDown: () => nudge(0, step, event),
        f: () => act('flip', event), F: () => act('flip', event), 1: () => act('large', event),
        2: () => act('medium', event), 3: () => act('small', event), PageUp: () => act('forward', event),
        PageDown: () => act('back', event), Delete: () => act('remove', event), Backspace: () => act('remove', event),
      };
      const run = keys[event.key];
      if (!run) return;
      event.preventDefault();
      run();
    },
  };
}

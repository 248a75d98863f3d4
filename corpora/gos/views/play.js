// A Game Of Sorts' game on the Play page (corpora/gos/views/play.py; the shell is ui/assets/play.js): one player's
// board of nine images in their recorded layout (each tile data-image-id; hover to zoom), the round's scenario and
// criterion, the recorded dialog up to this rank (both players' messages with the images each marked, the partner's
// locks as they happened). Click an image (or press its position, 1 to 9) and LOCK it: the images are ranked in the
// order locked, the first locked is rank 1, as in the game. Ranks stay in the browser until LOCK sends the step.
function createGame(area, shell) {
  const box = el('div', 'gs-play');
  const left = el('div', 'gs-left');
  const scenario = el('div', 'gs-scenario');
  const board = el('div', 'gs-board');
  board.setAttribute('data-play-canvas', '');
  const status = el('div', 'gs-status');
  status.setAttribute('aria-live', 'polite');
  left.append(scenario, board, status);
  const chat = el('div', 'gs-chat');
  box.append(left, chat);
  area.appendChild(box);

  const g = { setup: null, view: null, selected: null, tiles: {}, layout: [] };

  function label(image) {
    const info = (g.setup.images || {})[image];
    return info ? info.label : String(image).slice(0, 8);
  }

  function tile(image) {
    const info = (g.setup.images || {})[image] || {};
    const node = el('button', 'gs-tile');
    node.type = 'button';
    node.setAttribute('data-image-id', image);
    node.setAttribute('aria-label', `${info.category || 'image'} ${label(image)}`);
    if (info.src) {
      const img = document.createElement('img');
      img.src = info.src;
      img.alt = label(image);
      img.draggable = false;
      node.appendChild(img);
    } else {
      node.appendChild(el('span', 'gs-placeholder', label(image)));
      node.style.background = info.colour || '#999';
    }
    node.appendChild(el('span', 'gs-badge'));
    node.onclick = (event) => choose(image, event);
    return node;
  }

  function ranked() { return (g.view && g.view.ranked) || []; }

  function paint() {
    const ranks = ranked();
    Object.entries(g.tiles).forEach(([image, node]) => {
      const rank = ranks.indexOf(image) + 1;
      node.classList.toggle('gs-ranked', rank > 0);
      node.classList.toggle('gs-selected', image === g.selected);
      node.disabled = rank > 0 || Boolean(g.view && g.view.done);
      node.querySelector('.gs-badge').textContent = rank > 0 ? String(rank) : (image === g.selected ? '🔒' : '');
    });
    status.textContent = g.view && g.view.done ? 'Every image of every round is ranked.'
      : g.selected ? `Rank ${g.view.rank}: ${label(g.selected)} is chosen. Press LOCK to rank it.`
        : `Choose the image you would rank ${g.view ? g.view.rank : ''}${g.view && g.view.rank === 1 ? ' (the most suitable)' : ''}, then LOCK it.`;
  }

  function choose(image, event) {
    if (ranked().includes(image) || (g.view && g.view.done)) return;
    g.selected = g.selected === image ? null : image;
    paint();
    shell.measure(event);
    shell.changed();
  }

  function showBoard(round) {
    const info = (g.setup.rounds || []).find((r) => r.round === round) || { layout: [], criterion: '', instruction: '' };
    scenario.textContent = '';
    scenario.append(el('div', 'gs-round', `Round ${round} of ${(g.setup.rounds || []).length} · you play ${g.setup.seat}'s board`),
                    el('div', 'gs-criterion', info.criterion));
    if (info.instruction) scenario.appendChild(el('div', 'gs-instruction', info.instruction));
    if (g.layout.join() === info.layout.join()) return;
    board.textContent = '';
    g.tiles = {};
    g.layout = info.layout;
    info.layout.forEach((image) => {
      const node = tile(image);
      g.tiles[image] = node;
      board.appendChild(node);
    });
  }

  function showChat(lines) {
    chat.textContent = '';
    chat.appendChild(el('div', 'gs-chat-title', 'The recorded dialog so far'));
    (lines || []).forEach((line) => {
      const row = el('div', `gs-line${line.mine ? ' gs-mine' : ''}${line.kind !== 'message' ? ' gs-lock' : ''}`);
      if (line.kind === 'message') {
        row.append(el('b', null, `${line.who}${line.mine ? ' (your seat)' : ''}: `), document.createTextNode(line.text));
        (line.images || []).forEach((image) => {
          const chip = el('span', 'gs-chip', label(image));
          chip.title = 'The sender marked this image';
          chip.onmouseenter = () => g.tiles[image] && g.tiles[image].classList.add('gs-hint');
          chip.onmouseleave = () => g.tiles[image] && g.tiles[image].classList.remove('gs-hint');
          row.appendChild(chip);
        });
      } else {
        const verb = line.kind === 'lock' ? 'locked' : line.kind === 'unlock manual' ? 'withdrew the lock on' : 'was released from';
        row.textContent = `🔒 ${line.who} ${verb} ${label(line.image)}`;
      }
      chat.appendChild(row);
    });
    chat.scrollTop = chat.scrollHeight;
  }

  return {
    load(setup) { g.setup = setup; g.layout = []; },
    show(view) {
      g.view = view;
      g.selected = null;
      showBoard(view.round);
      showChat(view.lines);
      paint();
    },
    move() { return { image_id: g.selected }; },
    ready() { return Boolean(g.selected); },
    human(panel, move) {
      const image = move && move.image_id;
      const rank = g.view ? (g.view.rank > 1 ? g.view.rank - 1 : 'the last') : '';
      panel.textContent = image ? `The pair ranked ${label(image)} at rank ${rank}.` : '';
    },
    key(event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const position = Number(event.key);
      if (position >= 1 && position <= g.layout.length) {
        event.preventDefault();
        choose(g.layout[position - 1], event);
      }
    },
  };
}

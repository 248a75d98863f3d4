// Minecraft's game on the Play page (corpora/minecraft/views/play.py; the shell is ui/assets/play.js): the Builder's
// 3-D grid drawn on a 2-D canvas (cubes as painted polygons, far to near, in an orthographic view one can orbit by
// dragging and zoom with the wheel), the six colours, a click placing a block on the face or floor cell under the
// pointer (shown below the grid in game coordinates before the click), a right-click or Shift+click removing one,
// and the typed command field (data-play-command: "place red 3 1 -2", "remove 3 1 -2", game coordinates). Every
// action is drawn at once, in the browser; Done sends the step's actions. No WebGL: a frame of the largest
// structure costs a few milliseconds on a machine without a GPU, and a click less (``kept``: the floor drawn once a
// camera, the faces sorted once a camera, a click's cells merged in; the page's layout read before it is changed).
function createGame(area, shell) {
  const box = el('div', 'mc-play');
  const left = el('div', 'mc-left');
  const tools = el('div', 'mc-tools');
  const canvas = document.createElement('canvas');
  canvas.className = 'mc-canvas';
  canvas.setAttribute('data-play-canvas', '');
  canvas.tabIndex = 0;
  const readout = el('div', 'mc-readout', 'Point at the grid: the cell a click builds on is named here.');
  readout.setAttribute('aria-live', 'polite');
  const commandRow = el('div', 'mc-command-row');
  const command = document.createElement('input');
  command.type = 'text';
  command.className = 'mc-command';
  command.maxLength = 200;
  command.placeholder = 'place red 3 1 -2   ·   remove 3 1 -2   (Enter)';
  command.setAttribute('data-play-command', '');
  command.setAttribute('aria-label', 'Type an action');
  const undo = el('button', 'mc-undo', 'Undo');
  undo.type = 'button';
  commandRow.append(command, undo);
  const feedback = el('div', 'mc-feedback');
  const actionsBox = el('ol', 'mc-actions');
  left.append(tools, canvas, readout, commandRow, feedback, actionsBox);
  const chat = el('div', 'mc-chat');
  box.append(left, chat);
  area.appendChild(box);

  const g = {
    colors: {}, region: { x: [-5, 5], y: [1, 9], z: [-5, 5] }, color: null, start: new Map(), blocks: new Map(),
    actions: [], theta: 0.65, phi: 0.55, zoom: 1, hover: null, readout: null, drag: null, buttons: {},
  };
  const W = 560, H = 440;

  function key(x, y, z) { return `${x},${y},${z}`; }
  function inRegion(x, y, z) {
    const r = g.region;
    return x >= r.x[0] && x <= r.x[1] && y >= r.y[0] && y <= r.y[1] && z >= r.z[0] && z <= r.z[1];
  }

  // What a frame is made of, kept from one frame to the next while the camera stays (``view``: its angles and
  // zoom): the camera; the floor, its grid and the axes' labels, drawn on an offscreen canvas (``layer``) at the
  // second frame of a camera (not while it turns) and copied in one call from then on; the blocks' visible faces in
  // painting order (``faces``), sorted when the camera moves and, after a block placed or removed, only its cell's
  // and its neighbours' faces worked out again and merged in (``refaced``)
  const kept = {
    view: '', cam: null, layer: document.createElement('canvas'), layerView: '', drawnView: '', faces: null, facesView: '',
  };

  function sizeCanvas() {
    const ratio = window.devicePixelRatio || 1;
    for (const target of [canvas, kept.layer]) {
      target.width = W * ratio;
      target.height = H * ratio;
      target.getContext('2d').setTransform(ratio, 0, 0, ratio, 0, 0);
    }
    canvas.style.width = `${W}px`;
    canvas.style.height = `${H}px`;
  }
  sizeCanvas();

  function currentCamera() {
    const view = `${g.theta} ${g.phi} ${g.zoom}`;
    if (kept.view !== view) {
      kept.view = view;
      kept.cam = camera();
    }
    return kept.cam;
  }

  function camera() {
    const { theta, phi } = g;
    const c = [Math.cos(phi) * Math.sin(theta), Math.sin(phi), Math.cos(phi) * Math.cos(theta)];
    const r = [Math.cos(theta), 0, -Math.sin(theta)];
    const u = [-Math.sin(phi) * Math.sin(theta), Math.cos(phi), -Math.sin(phi) * Math.cos(theta)];
    const span = Math.max(g.region.x[1] - g.region.x[0], g.region.z[1] - g.region.z[0]) + 1;
    const scale = (Math.min(W, H) / (span * 1.2)) * g.zoom;
    const target = [(g.region.x[0] + g.region.x[1]) / 2, g.region.y[0] + 1.5, (g.region.z[0] + g.region.z[1]) / 2];
    return { c, r, u, scale, target };
  }

  function project(cam, p) {
    const d = [p[0] - cam.target[0], p[1] - cam.target[1], p[2] - cam.target[2]];
    return [W / 2 + cam.scale * (d[0] * cam.r[0] + d[1] * cam.r[1] + d[2] * cam.r[2]),
            H / 2 - cam.scale * (d[0] * cam.u[0] + d[1] * cam.u[1] + d[2] * cam.u[2]),
            d[0] * cam.c[0] + d[1] * cam.c[1] + d[2] * cam.c[2]];
  }

  const FACES = [  // normal, then the four corners as offsets from the cube's centre
    [[1, 0, 0], [[0.5, -0.5, -0.5], [0.5, 0.5, -0.5], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5]]],
    [[-1, 0, 0], [[-0.5, -0.5, -0.5], [-0.5, -0.5, 0.5], [-0.5, 0.5, 0.5], [-0.5, 0.5, -0.5]]],
    [[0, 1, 0], [[-0.5, 0.5, -0.5], [-0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, -0.5]]],
    [[0, -1, 0], [[-0.5, -0.5, -0.5], [0.5, -0.5, -0.5], [0.5, -0.5, 0.5], [-0.5, -0.5, 0.5]]],
    [[0, 0, 1], [[-0.5, -0.5, 0.5], [0.5, -0.5, 0.5], [0.5, 0.5, 0.5], [-0.5, 0.5, 0.5]]],
    [[0, 0, -1], [[-0.5, -0.5, -0.5], [-0.5, 0.5, -0.5], [0.5, 0.5, -0.5], [0.5, -0.5, -0.5]]],
  ];
  const SHADE = { '1,0,0': 0.82, '-1,0,0': 0.72, '0,1,0': 1, '0,-1,0': 0.55, '0,0,1': 0.9, '0,0,-1': 0.66 };

  const shades = new Map();  // (colour, factor) -> the face's fill, worked out once
  function shade(hex, factor) {
    const known = shades.get(hex + factor);
    if (known) return known;
    const n = parseInt(hex.slice(1), 16);
    const channel = (v) => Math.round(Math.min(255, v * factor));
    const fill = `rgb(${channel((n >> 16) & 255)},${channel((n >> 8) & 255)},${channel(n & 255)})`;
    shades.set(hex + factor, fill);
    return fill;
  }

  function draw() {
    const ctx = canvas.getContext('2d');
    const cam = currentCamera();
    if (kept.layerView !== kept.view && kept.drawnView !== kept.view) {
      kept.drawnView = kept.view;  // a camera's first frame (a turn's every frame): drawn here, not kept
      backdrop(ctx, cam);
    } else {
      if (kept.layerView !== kept.view) {
        kept.layerView = kept.view;
        backdrop(kept.layer.getContext('2d'), cam);
      }
      ctx.drawImage(kept.layer, 0, 0, W, H);  // opaque: it covers the last frame
    }
    ctx.strokeStyle = 'rgba(0, 0, 0, 0.35)';
    for (const face of visibleFaces(cam)) {
      ctx.fillStyle = shade(g.colors[face.color] || '#888888', SHADE[face.normal.join(',')]);
      polygon(ctx, face.points);
      ctx.fill();
      ctx.stroke();
    }
    // the cell a click would build on, outlined
    if (g.hover && g.hover.place && !g.drag) {
      const [x, y, z] = g.hover.place;
      ctx.strokeStyle = g.colors[g.color] || '#222';
      ctx.lineWidth = 2;
      for (const [, corners] of FACES) {
        polygon(ctx, corners.map((o) => project(cam, [x + o[0], y + o[1], z + o[2]])));
        ctx.stroke();
      }
      ctx.lineWidth = 1;
    }
  }

  // The background, the floor under the region (y = 0.5, below the lowest blocks), its grid and the axes' labels,
  // as the camera ``cam`` sees them, drawn on ``ctx`` (the grid's or the layer's)
  function backdrop(ctx, cam) {
    ctx.fillStyle = '#f4f6f8';
    ctx.fillRect(0, 0, W, H);
    const r = g.region, y0 = r.y[0] - 0.5;
    const corner = (x, z) => project(cam, [x, y0, z]);
    const floor = [corner(r.x[0] - 0.5, r.z[0] - 0.5), corner(r.x[1] + 0.5, r.z[0] - 0.5),
                   corner(r.x[1] + 0.5, r.z[1] + 0.5), corner(r.x[0] - 0.5, r.z[1] + 0.5)];
    ctx.fillStyle = cam.c[1] > 0 ? '#dfe7dc' : '#c9cfd6';
    polygon(ctx, floor);
    ctx.fill();
    ctx.strokeStyle = 'rgba(90, 110, 90, 0.35)';
    ctx.lineWidth = 1;
    ctx.beginPath();  // the grid's lines as one path, stroked once (a frame's budget is a few milliseconds)
    for (let x = r.x[0] - 0.5; x <= r.x[1] + 0.5; x += 1) segment(ctx, corner(x, r.z[0] - 0.5), corner(x, r.z[1] + 0.5));
    for (let z = r.z[0] - 0.5; z <= r.z[1] + 0.5; z += 1) segment(ctx, corner(r.x[0] - 0.5, z), corner(r.x[1] + 0.5, z));
    ctx.stroke();
    // the axes' directions, so that typed coordinates can be read off the grid
    ctx.fillStyle = '#334';
    ctx.font = '12px sans-serif';
    const label = (p, text) => { const q = project(cam, p); ctx.fillText(text, q[0] - 8, q[1] + 4); };
    label([r.x[1] + 1.3, y0, 0], '+x');
    label([0, y0, r.z[1] + 1.3], '+z');
    label([r.x[0] - 1.3, y0, 0], '−x');
    label([0, y0, r.z[0] - 1.3], '−z');
  }

  // The blocks' visible faces (those facing the camera and not against another block), far to near, as the camera
  // ``cam`` (the current one) sees them: sorted when the camera has moved or the blocks were set anew, else kept
  function visibleFaces(cam) {
    if (kept.faces && kept.facesView === kept.view) return kept.faces;
    const faces = [];
    for (const [k, color] of g.blocks) cellFaces(cam, k, color, faces);
    faces.sort(paintedBefore);
    kept.faces = faces;
    kept.facesView = kept.view;
    return faces;
  }

  function cellFaces(cam, k, color, faces) {
    const [x, y, z] = k.split(',').map(Number);
    FACES.forEach(([normal, corners], side) => {
      if (normal[0] * cam.c[0] + normal[1] * cam.c[1] + normal[2] * cam.c[2] <= 0) return;
      if (g.blocks.has(key(x + normal[0], y + normal[1], z + normal[2]))) return;
      const points = corners.map((o) => project(cam, [x + o[0], y + o[1], z + o[2]]));
      const depth = points.reduce((sum, p) => sum + p[2], 0) / 4;
      faces.push({ cell: [x, y, z], key: k, side, normal, points, depth, color });
    });
  }

  // The painting order: far to near, ties by cell and side, so that merging a click's faces into the kept order
  // gives the order sorting them all gives
  function paintedBefore(a, b) {
    return a.depth - b.depth || (a.key < b.key ? -1 : a.key > b.key ? 1 : a.side - b.side);
  }

  // A block placed or removed at x y z while the camera stays: the faces of its cell and of its six neighbours
  // (a face against the block appears or goes) worked out again and merged into the kept order; the faces are
  // sorted anew at the next frame when the camera has moved since they were
  function refaced(x, y, z) {
    if (!kept.faces || kept.facesView !== kept.view) {
      kept.faces = null;
      return;
    }
    const cells = new Set([key(x, y, z), ...FACES.map(([n]) => key(x + n[0], y + n[1], z + n[2]))]);
    const fresh = [];
    cells.forEach((k) => { if (g.blocks.has(k)) cellFaces(kept.cam, k, g.blocks.get(k), fresh); });
    fresh.sort(paintedBefore);
    const merged = [];
    let next = 0;
    for (const face of kept.faces) {
      if (cells.has(face.key)) continue;
      while (next < fresh.length && paintedBefore(fresh[next], face) < 0) merged.push(fresh[next++]);
      merged.push(face);
    }
    while (next < fresh.length) merged.push(fresh[next++]);
    kept.faces = merged;
  }

  function polygon(ctx, points) {
    ctx.beginPath();
    ctx.moveTo(points[0][0], points[0][1]);
    for (let i = 1; i < points.length; i += 1) ctx.lineTo(points[i][0], points[i][1]);
    ctx.closePath();
  }
  function segment(ctx, a, b) { ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); }

  function inside(points, x, y) {
    let sign = 0;
    for (let i = 0; i < points.length; i += 1) {
      const a = points[i], b = points[(i + 1) % points.length];
      const cross = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
      if (cross !== 0) {
        if (sign === 0) sign = Math.sign(cross);
        else if (Math.sign(cross) !== sign) return false;
      }
    }
    return true;
  }

  // What is under the pointer: the nearest block face (remove: its block; place: the cell beyond the face), or the
  // floor cell (place there, at the lowest level)
  function pick(x, y) {
    const cam = currentCamera();
    const faces = visibleFaces(cam);
    for (let i = faces.length - 1; i >= 0; i -= 1) {
      const face = faces[i];
      if (inside(face.points, x, y)) {
        const [cx, cy, cz] = face.cell;
        const place = [cx + face.normal[0], cy + face.normal[1], cz + face.normal[2]];
        return { remove: face.cell, place: inRegion(...place) ? place : null };
      }
    }
    // the floor plane y = y0 under the pointer: solve for the point whose projection is (x, y)
    const y0 = g.region.y[0] - 0.5;
    const sx = (x - W / 2) / cam.scale, sy = -(y - H / 2) / cam.scale;
    // p = t + sx*r + sy*u + s*c with p.y = y0
    const s = (cam.c[1] !== 0) ? (y0 - cam.target[1] - sx * cam.r[1] - sy * cam.u[1]) / cam.c[1] : 0;
    const px = cam.target[0] + sx * cam.r[0] + sy * cam.u[0] + s * cam.c[0];
    const pz = cam.target[2] + sx * cam.r[2] + sy * cam.u[2] + s * cam.c[2];
    const cell = [Math.round(px), g.region.y[0], Math.round(pz)];
    return inRegion(...cell) && !g.blocks.has(key(...cell)) ? { remove: null, place: cell } : null;
  }

  function say(text, bad) {
    feedback.textContent = text;
    feedback.classList.toggle('mc-bad', Boolean(bad));
  }

  // ``later``: the caller draws and measures once it has done the rest (a click also moves the hover outline)
  function apply(action, event, later = false) {
    const k = key(action.x, action.y, action.z);
    if (!inRegion(action.x, action.y, action.z)) {
      say(`${action.x} ${action.y} ${action.z} is outside the build region (x ${g.region.x.join('..')}, y ${g.region.y.join('..')}, z ${g.region.z.join('..')}).`, true);
      return false;
    }
    if (action.action === 'place') {
      if (g.blocks.has(k)) { say(`There is already a block at ${action.x} ${action.y} ${action.z}.`, true); return false; }
      g.blocks.set(k, action.color);
    } else {
      if (!g.blocks.has(k)) { say(`There is no block at ${action.x} ${action.y} ${action.z}.`, true); return false; }
      g.blocks.delete(k);
    }
    refaced(action.x, action.y, action.z);
    g.actions.push(action);
    say(`${describeAction(action)}.`);
    listActions(action);
    if (!later) {
      draw();
      shell.measure(event);
    }
    shell.changed();
    return true;
  }

  function describeAction(a) {
    return a.action === 'place' ? `place ${a.color} ${a.x} ${a.y} ${a.z}` : `remove ${a.x} ${a.y} ${a.z}`;
  }

  function listActions(added) {  // an action just made: one item more; else (undo, a new step) the list anew
    if (added && actionsBox.childElementCount === g.actions.length - 1) {
      actionsBox.appendChild(el('li', null, describeAction(added)));
    } else {
      actionsBox.textContent = '';
      g.actions.forEach((a) => actionsBox.appendChild(el('li', null, describeAction(a))));
    }
    undo.disabled = !g.actions.length;
  }

  function rebuild() {
    kept.faces = null;
    g.blocks = new Map(g.start);
    for (const a of g.actions) {
      const k = key(a.x, a.y, a.z);
      if (a.action === 'place') g.blocks.set(k, a.color); else g.blocks.delete(k);
    }
  }

  undo.onclick = (event) => {
    if (!g.actions.length) return;
    const last = g.actions.pop();
    rebuild();
    say(`Undone: ${describeAction(last)}.`);
    listActions();
    draw();
    shell.measure(event);
    shell.changed();  // the live game sends what takes the action back (corpora/minecraft/views/live.js)
  };

  // Typed actions: "place red 3 1 -2" (or "put"), "remove 3 1 -2" (or "pick")
  command.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    const words = command.value.trim().toLowerCase().split(/[\s,]+/).filter(Boolean);
    const verb = words[0];
    const numbers = words.slice(verb === 'place' || verb === 'put' ? 2 : 1).map(Number);
    const whole = numbers.length === 3 && numbers.every((n) => Number.isInteger(n));
    if ((verb === 'place' || verb === 'put') && words.length === 5 && whole && words[1] in g.colors) {
      if (apply({ action: 'place', x: numbers[0], y: numbers[1], z: numbers[2], color: words[1] }, event)) command.value = '';
    } else if ((verb === 'remove' || verb === 'pick') && words.length === 4 && whole) {
      if (apply({ action: 'remove', x: numbers[0], y: numbers[1], z: numbers[2] }, event)) command.value = '';
    } else {
      say(`Not understood: write “place <colour> x y z” (colours: ${Object.keys(g.colors).join(', ')}) or “remove x y z”.`, true);
    }
  });

  // Where the pointer is on the grid. Read at the start of a handler, before it changes the page: read after, it
  // would make the browser lay the page out there and then (a few milliseconds of a click's handler)
  function pointer(event) {
    const rect = canvas.getBoundingClientRect();
    return [event.clientX - rect.left, event.clientY - rect.top];
  }

  // What is under the pointer (at ``at``, from ``pointer``) and the readout naming it, rewritten only when it says
  // something else (a pointer moving over one cell changes nothing on the page); whether it did (the outline, of
  // the cell and colour it names, is drawn again then)
  function showHover(at) {
    g.hover = pick(at[0], at[1]);
    const where = g.hover && g.hover.place ? `a click places ${g.color} at x ${g.hover.place[0]}, y ${g.hover.place[1]}, z ${g.hover.place[2]}` : 'no cell to build on here';
    const removes = g.hover && g.hover.remove ? ` · right-click removes x ${g.hover.remove[0]}, y ${g.hover.remove[1]}, z ${g.hover.remove[2]}` : '';
    if (g.readout === where + removes) return false;
    g.readout = where + removes;
    readout.textContent = g.readout;
    readout.setAttribute('data-place', g.hover && g.hover.place ? g.hover.place.join(' ') : '');
    readout.setAttribute('data-remove', g.hover && g.hover.remove ? g.hover.remove.join(' ') : '');
    return true;
  }

  canvas.addEventListener('pointerdown', (event) => {
    g.drag = { x: event.clientX, y: event.clientY, theta: g.theta, phi: g.phi, moved: false, button: event.button,
               shift: event.shiftKey };
    try { canvas.setPointerCapture(event.pointerId); } catch (e) { /* a synthetic pointer: nothing to capture */ }
  });
  canvas.addEventListener('pointermove', (event) => {
    if (g.drag) {
      const dx = event.clientX - g.drag.x, dy = event.clientY - g.drag.y;
      if (!g.drag.moved && Math.hypot(dx, dy) > 4) g.drag.moved = true;
      if (g.drag.moved) {  // orbiting: turn about the vertical axis, tilt between nearly flat and nearly from above
        g.theta = g.drag.theta - dx * 0.01;
        g.phi = Math.min(1.5, Math.max(0.08, g.drag.phi + dy * 0.01));
        draw();
        shell.measure(event);
        return;
      }
    }
    if (showHover(pointer(event))) draw();  // the outline moved (another cell, another colour)
  });
  canvas.addEventListener('pointerup', (event) => {
    const at = pointer(event);
    const drag = g.drag;
    g.drag = null;
    if (!drag || drag.moved) { showHover(at); draw(); return; }
    const hover = pick(at[0], at[1]);
    if (!hover) { showHover(at); return; }
    let applied = false;
    if ((drag.button === 2 || drag.shift) && hover.remove) {
      const [x, y, z] = hover.remove;
      applied = apply({ action: 'remove', x, y, z }, event, true);
    } else if (drag.button === 0 && !drag.shift && hover.place) {
      const [x, y, z] = hover.place;
      applied = apply({ action: 'place', x, y, z, color: g.color }, event, true);
    }
    showHover(at);  // what is under the pointer now, over the changed structure: the next click's cell
    draw();  // one frame's drawing for the click
    if (applied) shell.measure(event);
  });
  canvas.addEventListener('contextmenu', (event) => event.preventDefault());
  canvas.addEventListener('pointerleave', () => {
    if (!g.hover) return;
    g.hover = null;
    draw();
  });
  canvas.addEventListener('wheel', (event) => {
    event.preventDefault();
    g.zoom = Math.min(3, Math.max(0.5, g.zoom * (event.deltaY < 0 ? 1.1 : 1 / 1.1)));
    draw();
  }, { passive: false });

  function chooseColor(name) {
    g.color = name;
    Object.entries(g.buttons).forEach(([n, b]) => b.setAttribute('aria-pressed', String(n === name)));
  }

  function showChat(lines) {
    chat.textContent = '';
    chat.appendChild(el('div', 'mc-chat-title', 'The recorded dialog (the Architect instructs; the Builder\'s replies are the partner\'s)'));
    let first = null;
    (lines || []).forEach((line) => {
      const row = el('div', `mc-line mc-${line.role.toLowerCase()}${line.new ? ' mc-new' : ''}`);
      row.append(el('b', null, `${line.role}: `), document.createTextNode(line.text));
      chat.appendChild(row);
      if (line.new && !first) first = row;
    });
    chat.scrollTop = chat.scrollHeight;
  }

  return {
    load(setup) {
      g.colors = setup.colors || {};
      g.region = setup.region || g.region;
      kept.view = '';  // the camera frames the region
      kept.layerView = '';
      kept.drawnView = '';
      kept.faces = null;
      tools.textContent = '';
      g.buttons = {};
      Object.entries(g.colors).forEach(([name, hex], index) => {
        const b = el('button', 'mc-color', `${index + 1} ${name}`);
        b.type = 'button';
        b.style.setProperty('--mc-color', hex);
        b.setAttribute('data-color', name);
        b.title = `${name} (key ${index + 1})`;
        b.onclick = () => chooseColor(name);
        tools.appendChild(b);
        g.buttons[name] = b;
      });
      tools.appendChild(el('span', 'mc-hint', 'Click: place · right-click or Shift+click: remove · drag: turn · wheel: zoom'));
      chooseColor(Object.keys(g.colors)[0]);
    },
    show(view) {
      g.start = new Map((view.start || []).map(([x, y, z, c]) => [key(x, y, z), c]));
      g.actions = [];
      rebuild();
      listActions();
      say(view.sample_id === null ? 'The game is over.' : 'Build what the Architect asks, then press Done.');
      showChat(view.lines);
      draw();
    },
    move() { return { actions: g.actions.map((a) => ({ ...a })) }; },
    ready() { return true; },
    human(panel, move) {
      const actions = (move && move.actions) || [];
      panel.textContent = actions.length ? actions.map(describeAction).join(' · ') : 'The human Builder changed nothing.';
    },
    key(event) {
      const index = Number(event.key) - 1;
      const names = Object.keys(g.colors);
      if (!event.ctrlKey && !event.metaKey && !event.altKey && index >= 0 && index < names.length) chooseColor(names[index]);
    },
  };
}

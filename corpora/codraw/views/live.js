// CoDraw's live game (corpora/codraw/views/live.py; the shell is ui/assets/live.js): the solo game's canvas and
// palette (createGame of play.js) for the Drawer, whose whole canvas is sent after each move (drawn at once in the
// browser, sent a moment later so that a drag is one event); for the Teller the target scene, drawn by the same
// code, and one peek at the Drawer's canvas (no messages while it is open). Messages alternate, the Teller first.
function createLiveGame(area, live) {
  const el = live.el;
  const stub = { changed: () => {}, measure: () => {}, trace: () => {} };
  const g = { awaiting: false, peekOpen: false, peeked: false, canvas: [], sentCanvas: '[]', timer: null };
  let game = null;
  const box = el('div', `lv-codraw lv-codraw-${live.role.toLowerCase()}`);
  area.appendChild(box);

  if (live.role === 'Drawer') {
    const help = el('div', 'lv-panel-title', 'Draw what the Teller describes: drag pieces from the palette onto the canvas. The Teller sees your canvas once, if they peek.');
    box.appendChild(help);
    const holder = el('div');
    box.appendChild(holder);
    game = createGame(holder, { ...stub, changed: () => sendSoon() });
    game.load(live.draw);
    game.show({ canvas: [], lines: [] });
  } else {
    const hidden = el('div');  // the solo game, loaded but never shown: its drawing of a canvas is reused
    game = createGame(hidden, stub);
    game.load(live.draw);
    box.appendChild(el('div', 'lv-panel-title', 'The target scene: describe it to the Drawer, who cannot see it.'));
    const target = el('div', 'lv-codraw-target');
    game.human(target, { canvas: ((live.setup.role || {}).target) || [] });
    box.appendChild(target);
    const row = el('div', 'lv-row');
    g.peekButton = el('button', 'lv-button', 'Peek at the Drawer\'s canvas (once)');
    g.peekButton.type = 'button';
    g.peekButton.setAttribute('data-live-peek', '');
    g.peekButton.onclick = () => { g.peekButton.disabled = true; live.send('peek', {}); };
    row.appendChild(g.peekButton);
    box.appendChild(row);
    g.peekPanel = el('div', 'lv-codraw-peek');
    box.appendChild(g.peekPanel);
  }

  function sendSoon() {
    clearTimeout(g.timer);
    g.timer = setTimeout(() => {
      const canvas = game.move().canvas;
      const text = JSON.stringify(canvas);
      if (text === g.sentCanvas) return;
      g.sentCanvas = text;
      live.send('canvas', { cliparts: canvas });
    }, 150);
  }

  function showPeek(canvas) {
    g.peekPanel.textContent = '';
    if (!g.peekOpen) return;
    g.peekPanel.appendChild(el('div', 'lv-panel-title', 'The Drawer\'s canvas now (no messages while the peek is open):'));
    const frame = el('div', 'lv-codraw-target');
    game.human(frame, { canvas });
    g.peekPanel.appendChild(frame);
    const close = el('button', 'lv-button', 'Close the peek');
    close.type = 'button';
    close.setAttribute('data-live-unpeek', '');
    close.onclick = () => { close.disabled = true; live.send('unpeek', {}); };
    g.peekPanel.appendChild(close);
  }

  function paintTeller() {
    if (!g.peekButton) return;
    g.peekButton.disabled = g.peeked || g.awaiting;
    g.peekButton.title = g.peeked ? 'The Teller peeks once a game.' : g.awaiting ? 'Peek between rounds: after the Drawer\'s reply.' : '';
  }

  return {
    apply(event, catchingUp) {
      if (event.kind === 'message') g.awaiting = event.role === 'Teller';
      else if (event.kind === 'canvas') {
        g.canvas = event.payload.cliparts;
        if (!catchingUp && live.role === 'Drawer' && !live.fromThisTab(event)) {  // the Drawer's other tab drew
          game.show({ canvas: g.canvas, lines: [] });
          g.sentCanvas = JSON.stringify(game.move().canvas);
        }
      }
      else if (event.kind === 'peek') { g.peekOpen = g.peeked = true; showPeek(event.payload.canvas || []); }
      else if (event.kind === 'unpeek') { g.peekOpen = false; showPeek([]); }
      paintTeller();
      live.changed();
    },
    caughtUp() {  // a reload: the Drawer's canvas as last sent
      if (live.role === 'Drawer' && g.canvas.length) {
        game.show({ canvas: g.canvas, lines: [] });
        g.sentCanvas = JSON.stringify(game.move().canvas);
      }
      paintTeller();
      live.changed();
    },
    canSend() {
      if (g.peekOpen) return 'No messages while the Teller peeks at the canvas.';
      if (live.role === 'Teller' && g.awaiting) return 'Wait for the Drawer\'s reply.';
      if (live.role === 'Drawer' && !g.awaiting) return 'Wait for the Teller\'s message.';
      return '';
    },
    message(text) { return { text }; },
    key(event) { if (game && live.role === 'Drawer') game.key(event); },
    refused() { paintTeller(); },
  };
}

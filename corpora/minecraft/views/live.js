// Minecraft's live game (corpora/minecraft/views/live.py; the shell is ui/assets/live.js): the solo game's grid
// (createGame of play.js) for the Builder, every block placed or removed drawn at once and sent as one event (an
// undo sends what takes it back); for the Architect the target and the build as it stands, each drawn by the same
// code (turn them by dragging), the build redrawn at each of the Builder's moves.
function createLiveGame(area, live) {
  const el = live.el;
  const stub = { changed: () => {}, measure: () => {}, trace: () => {} };
  const g = { build: new Map(), sent: new Map(), shown: new Map() };
  const box = el('div', `lv-mc lv-mc-${live.role.toLowerCase()}`);
  area.appendChild(box);
  const key = (x, y, z) => `${x},${y},${z}`;
  const asStart = (blocks) => [...blocks.entries()].map(([k, c]) => [...k.split(',').map(Number), c]);

  function view(title, onChange) {
    box.appendChild(el('div', 'lv-panel-title', title));
    const holder = el('div', 'lv-mc-view');
    box.appendChild(holder);
    const game = createGame(holder, { ...stub, changed: () => onChange(game) });
    game.load(live.draw);
    return game;
  }

  let builder = null;
  let buildView = null;
  if (live.role === 'Builder') {
    builder = view('Build what the Architect describes: click to place, right-click or Shift+click to remove.', sendChanges);
    builder.show({ start: [], lines: [], sample_id: 0 });
  } else {
    const target = view('The target structure: describe it to the Builder, who cannot see it.', (game) => game.show({ start: targetBlocks(), lines: [], sample_id: 0 }));
    target.show({ start: targetBlocks(), lines: [], sample_id: 0 });
    buildView = view('The Builder\'s structure as it stands:', () => showBuild());
    showBuild();
  }

  function targetBlocks() { return ((live.setup.role || {}).target) || []; }
  function showBuild() { if (buildView) buildView.show({ start: asStart(g.build), lines: [], sample_id: 0 }); }

  // the Builder's grid now: what it was shown, with the actions made since
  function current(game) {
    const blocks = new Map(g.shown);
    game.move().actions.forEach((a) => {
      if (a.action === 'place') blocks.set(key(a.x, a.y, a.z), a.color); else blocks.delete(key(a.x, a.y, a.z));
    });
    return blocks;
  }

  function sendChanges(game) {
    const now = current(game);
    g.sent.forEach((color, k) => {
      if (!now.has(k) || now.get(k) !== color) {
        const [x, y, z] = k.split(',').map(Number);
        live.send('remove', { x, y, z });
        g.sent.delete(k);
      }
    });
    now.forEach((color, k) => {
      if (!g.sent.has(k)) {
        const [x, y, z] = k.split(',').map(Number);
        live.send('place', { x, y, z, color });
        g.sent.set(k, color);
      }
    });
  }

  function reshowBuilder() {
    g.shown = new Map(g.build);
    g.sent = new Map(g.build);
    builder.show({ start: asStart(g.build), lines: [], sample_id: 0 });
  }

  return {
    apply(event, catchingUp) {
      const p = event.payload;
      if (event.kind === 'place') g.build.set(key(p.x, p.y, p.z), p.color);
      else if (event.kind === 'remove') g.build.delete(key(p.x, p.y, p.z));
      else return;
      if (catchingUp) return;
      if (buildView) showBuild();
      else if (!live.fromThisTab(event)) reshowBuilder();  // the same player's other tab built
    },
    caughtUp() {
      if (builder) reshowBuilder(); else showBuild();
    },
    canSend() { return ''; },
    message(text) { return { text }; },
    key(event) { if (builder && live.role === 'Builder') builder.key(event); },
    refused() { if (builder) reshowBuilder(); },  // the store's build: the move the rules refused is taken back
  };
}

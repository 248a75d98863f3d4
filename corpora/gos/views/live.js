// A Game Of Sorts' live game (corpora/gos/views/live.py; the shell is ui/assets/live.js): each player's board in
// their own layout of the round, drawn by the solo game (createGame of play.js: click an image to choose it, its
// rank shown once ranked). LOCK locks the chosen image (the partner does not see a lock); when both lock the same
// image it is ranked, on different images both locks are released. Before a message is sent the images it refers
// to are marked (or "no image"). Once the round's nine images are ranked, "Next round" brings the next board.
function createLiveGame(area, live) {
  const el = live.el;
  const boards = (live.setup.shared || {}).boards || [];
  const layouts = (live.setup.role || {}).layouts || [];
  const g = { round: 1, ranked: [], mine: null, marks: new Set(), noImage: false };
  const box = el('div', 'lv-gos');
  area.appendChild(box);
  const holder = el('div');
  box.appendChild(holder);
  const rounds = boards.map((b, i) => ({ round: i + 1, criterion: b.criterion, instruction: b.instruction,
                                         layout: layouts[i] || b.image_ids, n_ranks: b.image_ids.length }));
  const game = createGame(holder, { changed: () => paint(), measure: () => {}, trace: () => {} });
  game.load({ seat: live.role, rounds, images: live.draw.images || {} });
  const lockRow = el('div', 'lv-row');
  const lock = el('button', 'lv-button', 'LOCK');
  lock.type = 'button';
  lock.setAttribute('data-live-lock', '');
  const unlock = el('button', 'lv-button', 'Take back my lock');
  unlock.type = 'button';
  unlock.setAttribute('data-live-unlock', '');
  const next = el('button', 'lv-button', 'Next round');
  next.type = 'button';
  next.setAttribute('data-live-next', '');
  const lockNote = el('span', 'lv-panel-title');
  lockRow.append(lock, unlock, next, lockNote);
  box.appendChild(lockRow);
  box.appendChild(el('div', 'lv-panel-title', 'Mark the images your next message refers to:'));
  const marks = el('div', 'lv-row lv-gos-marks');
  box.appendChild(marks);

  const label = (image) => ((live.draw.images || {})[image] || {}).label || String(image).slice(0, 8);
  const board = () => boards[g.round - 1] || { image_ids: [] };

  function showBoard() {
    game.show({ round: g.round, ranked: g.ranked.slice(), rank: g.ranked.length + 1, lines: [],
                done: g.ranked.length === board().image_ids.length });
    showMarks();
  }

  function showMarks() {
    marks.textContent = '';
    const none = el('button', `lv-mark${g.noImage ? ' lv-marked' : ''}`, 'no image');
    none.type = 'button';
    none.setAttribute('data-live-mark', '');
    none.onclick = () => { g.noImage = !g.noImage; if (g.noImage) g.marks.clear(); showMarks(); live.changed(); };
    marks.appendChild(none);
    (layouts[g.round - 1] || board().image_ids).forEach((image) => {
      const chip = el('button', `lv-mark${g.marks.has(image) ? ' lv-marked' : ''}`, label(image));
      chip.type = 'button';
      chip.setAttribute('data-live-mark', image);
      chip.onclick = () => {
        if (g.marks.has(image)) g.marks.delete(image); else g.marks.add(image);
        g.noImage = false;
        showMarks();
        live.changed();
      };
      marks.appendChild(chip);
    });
    paint();
  }

  function paint() {
    const chosen = game.move().image_id;
    const done = g.ranked.length === board().image_ids.length;
    lock.disabled = !chosen || Boolean(g.mine) || done;
    unlock.disabled = !g.mine;
    next.disabled = !done || g.round >= boards.length;
    lockNote.textContent = g.mine ? `Your lock: ${label(g.mine)} (waiting for your partner to lock the same image).`
      : done ? (g.round >= boards.length ? 'Every round is ranked: finish the game.' : 'Every image is ranked: go on to the next round.')
        : `Round ${g.round} of ${boards.length}: ${g.ranked.length} of ${board().image_ids.length} ranked.`;
  }

  lock.onclick = () => {
    const image = game.move().image_id;
    if (!image) return;
    g.mine = image;
    paint();
    live.send('lock', { image_id: image });
  };
  unlock.onclick = () => { if (g.mine) { live.send('unlock', { image_id: g.mine }); g.mine = null; paint(); } };
  next.onclick = () => { next.disabled = true; live.send('next_round', {}); };

  return {
    apply(event, catchingUp) {
      const p = event.payload;
      if (event.kind === 'next_round') { g.round += 1; g.ranked = []; g.mine = null; g.marks.clear(); g.noImage = false; }
      else if (event.kind === 'lock') { g.mine = p.image_id; }
      else if (event.kind === 'unlock') { g.mine = null; }
      else if (event.kind === 'unlock_automatic') {
        g.mine = null;
        if (!catchingUp) live.say('Your partner locked another image: both locks were released.', 'info');
      } else if (event.kind === 'rank') { g.ranked.push(p.image_id); g.mine = null; }
      else return;
      if (!catchingUp) showBoard();
    },
    caughtUp() { showBoard(); },
    describe(event) {
      const ids = event.payload.image_ids || [];
      const span = el('span', 'lv-gos-refs', ids.length ? ` [${ids.map(label).join(', ')}]` : ' [no image]');
      return span;
    },
    canSend() { return ''; },
    message(text) {
      if (!g.marks.size && !g.noImage) return 'Mark the images your message refers to first (or "no image").';
      const payload = { text, image_ids: g.noImage ? [] : [...g.marks] };
      g.marks.clear();
      g.noImage = false;
      showMarks();
      return payload;
    },
    refused() { g.mine = null; paint(); },
  };
}

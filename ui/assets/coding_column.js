// The coding column (ui/coding/workbench.py), an st.components.v2 component: the step's text to select spans from,
// every label of the codebook as a button with its key, and a notes field. It holds the coder's labels of the
// dialog and the text of its steps, and follows the step player's step in the browser ("step-player-shown"), so
// the step's labels and text are there the moment the step is. A label key or click shows the label at once and
// sends the write behind it: every write not yet answered goes in each batch (trigger "writes", a batch as
// soon as a write is made, sent again when its run ends unanswered), each named by its uid, so none is lost and
// none is stored twice; the server answers each (stored, already there, refused with the reason, or retry).
// Shift with a key, or the label's ×, takes it off; Ctrl+Z undoes the last label. Contract for tests: the root
// has data-coding-panel, each label control data-label-key (and data-label-set="1" when the step has that
// label), the notes field data-notes-field; data-dialog and data-step say where a key labels now, data-pending how many writes are unanswered. Everything from the corpus or the store is set with textContent, never as markup.
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  // One column per key for the page's life: built anew in the page (an element above it came or went), it takes
  // its writes on their way, its undo and its text along, not losing a label pressed a moment before.
  const columns = window.__codingColumns || (window.__codingColumns = {});
  let column = parentElement.__codingColumn || columns[data.key];
  if (!column) column = createColumn(parentElement);
  if (column.root.parentElement !== parentElement) parentElement.appendChild(column.root);
  parentElement.__codingColumn = column;
  columns[data.key] = column;
  column.trigger = setTriggerValue;
  column.update(data);
  // A listener of its own per call (the runtime may clean up an earlier call after this one started); the column
  // handles each event once, however many calls are listening.
  const onKey = (event) => column.onKey(event);
  const onStep = (event) => column.onStep(event);
  document.addEventListener('keydown', onKey);
  document.addEventListener('step-player-shown', onStep);
  return () => {
    document.removeEventListener('keydown', onKey);
    document.removeEventListener('step-player-shown', onStep);
  };
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// A write's name: 32 hex digits from the browser's random source (randomUUID needs a secure context)
function newUid() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const points = (s) => Array.from(s);  // offsets count code points, as Python does

function keyOf(event) {
  const code = event.code || '';
  if (code.startsWith('Key')) return code.slice(3).toLowerCase();
  if (code.startsWith('Digit')) return code.slice(5);
  return String(event.key || '').toLowerCase();
}

function createColumn(parent) {
  const root = el('div', 'dc-root');
  root.setAttribute('data-coding-panel', '');
  const head = el('div', 'dc-head');
  const where = el('span', 'dc-where');
  const status = el('span', 'dc-status');
  status.setAttribute('aria-live', 'polite');
  head.append(where, status);
  const text = el('div', 'dc-step-text');
  const groups = el('div', 'dc-groups');
  const noteBox = el('div', 'dc-note');
  const note = document.createElement('textarea');
  note.className = 'dc-note-field';
  note.rows = 2;
  note.setAttribute('data-notes-field', '');
  const noteSave = el('button', 'dc-note-save', 'Save note');
  noteSave.type = 'button';
  noteSave.title = 'Save the note on this step (Ctrl+Enter)';
  noteBox.append(note, noteSave);
  root.append(head, text, groups, noteBox);
  parent.appendChild(root);

  const c = {
    root, data: null, token: null, step: 0, outbox: new Map(), seq: 0, inFlight: 0, sentAt: 0, undo: [],
    shownText: null, chips: new Map(), trigger: null, noteSent: null,
    retryMs: 1500,  // a batch with no answer by then is sent again, whatever the page did (a test may set it)
  };

  // What the column did, the latest 100 to 200 entries, kept on its root for a failing browser test to save
  function trace(...entry) {
    const log = root.__trace || (root.__trace = []);
    log.push([Math.round(performance.now()), ...entry]);
    if (log.length > 200) log.splice(0, 100);
  }

  function say(message, kind) {
    status.textContent = message;
    status.className = 'dc-status' + (kind ? ' dc-' + kind : '');
  }

  function playerStep() {
    const d = c.data;
    const player = d && document.querySelector('[data-step-player][data-player-key="' + d.player + '"]');
    if (!player) return 0;
    // the step the player went to, whose pictures may still be on their way (data-step names the step drawn):
    // a label keyed now is put there, not on the step before (an update of the column while a step's pictures
    // came late moved labels back to it, where they were "already labelled")
    const state = player.parentElement && player.parentElement.__stepPlayer;
    const current = state && state.current > 0 ? state.current : Number(player.dataset.step);
    return current > 0 ? current : 0;
  }

  // where a label of ``scope`` put at the step shown is stored: a dialog label at no step (at the round where the
  // corpus replays in rounds)
  function placeOf(scope, step) {
    const d = c.data;
    return scope === 'dialog' ? { round: d.inRounds ? d.round : null, turn: null } : { round: d.round, turn: step };
  }

  const same = (a, place) => (a.round ?? null) === (place.round ?? null) && (a.turn ?? null) === (place.turn ?? null);

  // The labels as the coder sees them: the stored ones not being taken off, and the writes on their way.
  function live() {
    const removing = new Set([...c.outbox.values()].filter((w) => w.kind === 'remove').map((w) => w.target));
    const labels = c.data.stored.filter((s) => !removing.has(s.uid));
    c.outbox.forEach((w) => {  // this dialog's (a write of the dialog before may still be on its way)
      if ((w.kind === 'put' || w.kind === 'span') && w.dialog === c.data.dialog && (w.round ?? null) === (c.data.round ?? null)) {
        labels.push({ uid: w.uid, scope: w.scope, label: w.label, round: w.at.round, turn: w.at.turn,
                      utterance: w.utterance, start: w.start, end: w.end, pending: true });
      }
    });
    return labels;
  }

  function labelAt(label, step) {
    const place = placeOf(label.scope, step);
    return live().filter((s) => s.label === label.name && s.scope === label.scope && same(s, place));
  }

  function queue(write, at, scope) {
    Object.defineProperty(write, 'at', { value: at, enumerable: false });
    Object.defineProperty(write, 'scope', { value: scope, enumerable: false });
    c.outbox.set(write.uid, write);
    render();
    flush();
  }

  function put(label, step, fromUndo) {
    const d = c.data;
    if (label.scope === 'span') {
      const s = selected();
      if (!s || s.end <= s.start) { say('Select characters of one utterance first, then ' + label.name + '.', 'warn'); return; }
      const write = { uid: newUid(), kind: 'span', dialog: d.dialog, round: d.round, turn: step, codebook: d.codebook,
                      label: label.name, utterance: s.utterance, start: s.start, end: s.end };
      window.getSelection().removeAllRanges();
      c.undo.push({ type: 'put', uid: write.uid, label: label.name });
      say('Saving “' + s.text + '” as ' + label.name + '…', 'pending');
      queue(write, placeOf('span', step), 'span');
      return;
    }
    const place = placeOf(label.scope, step);
    if (labelAt(label, step).length) {
      trace('already', label.name, d.dialog, step);
      const where = label.scope === 'dialog' ? d.titles.dialog.toLowerCase() : d.unit.toLowerCase() + ' ' + step;
      say(label.name + ' is already labelled at this ' + where + ' (Shift+' + (label.key || '…') + ' or × takes it off).', 'warn');
      flash(label.name);
      return;
    }
    const write = { uid: newUid(), kind: 'put', dialog: d.dialog, round: d.round, turn: step, codebook: d.codebook,
                    label: label.name };
    if (!fromUndo) c.undo.push({ type: 'put', uid: write.uid, label: label.name });
    trace('put', write.uid, label.name, d.dialog, step);
    say('Saving ' + label.name + '…', 'pending');
    queue(write, place, label.scope);
  }

  function takeOff(label, step, fromUndo) {
    const d = c.data;
    const here = labelAt(label, step);
    if (!here.length) { say(label.name + ' is not labelled here.', 'warn'); return; }
    here.forEach((s) => {
      if (s.pending && !c.sent.has(s.uid)) { c.outbox.delete(s.uid); return; }  // never sent: nothing to take off
      // after the write it takes off in the outbox (a Map keeps the order): the server applies them in turn
      const write = { uid: newUid(), kind: 'remove', dialog: d.dialog, round: d.round, turn: step, target: s.uid };
      Object.defineProperty(write, 'at', { value: placeOf(label.scope, step), enumerable: false });
      c.outbox.set(write.uid, write);
    });
    if (!fromUndo) c.undo.push({ type: 'remove', label: label.name, step });
    say('Taking ' + label.name + ' off…', 'pending');
    render();
    flush();
  }

  function undo() {
    const last = c.undo.pop();
    if (!last) { say('Nothing to undo.', 'warn'); return; }
    const label = c.data.labels.find((l) => l.name === last.label);
    if (last.type === 'put') {
      const w = c.outbox.get(last.uid);
      if (w && !c.sent.has(last.uid)) { c.outbox.delete(last.uid); render(); say('Undone: ' + last.label + '.'); return; }
      const d = c.data;
      const write = { uid: newUid(), kind: 'remove', dialog: d.dialog, round: d.round, turn: c.step, target: last.uid };
      Object.defineProperty(write, 'at', { value: null, enumerable: false });
      c.outbox.set(write.uid, write);
      say('Undone: ' + last.label + ' (taking it off…)', 'pending');
      render();
      flush();
    } else if (label) {
      put(label, last.step, true);
      say('Undone: ' + last.label + ' is back (saving…)', 'pending');
    }
  }

  function flash(name) {
    const chip = c.chips.get(name);
    if (!chip) return;
    chip.classList.remove('dc-flash');
    void chip.offsetWidth;  // restart the animation
    chip.classList.add('dc-flash');
  }

  // A write goes as soon as it is made, in a batch of every write not yet answered (in the order they were
  // made, at most 200): a batch that takes the place of the one before it (Streamlit keeps a trigger's newer value)
  // loses none, and a write the server has answered already is answered again from the session, not stored
  // twice. A batch can go unanswered: Streamlit sends the widget changes of one moment as one run of the fragment
  // that changed first, so a batch sent in the moment of the step player's report rides in the player's run,
  // which stores the writes (every callback runs) but does not draw this column. Such a batch is sent again as
  // soon as the page's run is over without its answer (``watchRun``), or after ``retryMs`` whatever happens.
  c.sent = new Set();
  function flush(again) {
    root.dataset.pending = String(c.outbox.size);
    if (!c.trigger || !c.outbox.size || !root.isConnected) return;
    const fresh = [...c.outbox.keys()].some((uid) => !c.sent.has(uid));
    if (!fresh && !again && c.inFlight && performance.now() - c.sentAt < c.retryMs) return;
    const writes = [...c.outbox.values()].slice(0, 200);
    c.seq += 1;
    c.inFlight = c.seq;
    c.sentAt = performance.now();
    writes.forEach((w) => c.sent.add(w.uid));
    trace('send', c.seq, writes.map((w) => w.uid));
    c.trigger('writes', { seq: c.seq, writes });
    clearTimeout(c.retryTimer);
    c.retryTimer = setTimeout(flush, c.retryMs + 100);
    watchRun();
  }

  // The latest batch is sent again when a run of the page ends (its script state back to idle a moment later)
  // and no answer to it has come: its run was another fragment's. A run that ended while the batch waited for
  // its own sends it again too soon at worst: the server answers it from the session.
  function watchRun() {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || c.runWatch) return;
    const idle = () => app.dataset.testScriptState === 'notRunning' && app.dataset.testConnectionState === 'CONNECTED';
    c.runWatch = new MutationObserver(() => {
      if (!idle()) return;
      clearTimeout(c.runCheck);
      c.runCheck = setTimeout(() => {
        if (!c.inFlight || !root.isConnected) { stopWatch(); return; }
        if (!idle()) return;
        trace('unanswered', c.inFlight, c.unanswered);
        stopWatch();
        // a few times in a row at most (a server that never draws the column: the fallback delay then)
        c.unanswered = (c.unanswered || 0) + 1;
        if (c.unanswered <= 3) flush(true);
      }, 100);
    });
    c.runWatch.observe(app, { attributes: true, attributeFilter: ['data-test-script-state'] });
  }
  function stopWatch() {
    if (c.runWatch) c.runWatch.disconnect();
    c.runWatch = null;
    clearTimeout(c.runCheck);
  }

  function answered(answers) {
    let refused = null;
    let stored = null;
    c.outbox.forEach((w, uid) => {
      const answer = answers[uid];
      if (!answer || answer.status === 'retry') return;
      trace('answer', uid, answer.status);
      c.outbox.delete(uid);
      c.sent.delete(uid);
      if (answer.status === 'stored') {
        stored = answer.message;
        if (w.kind === 'note' && note.value.trim() === w.text.trim()) note.value = '';
      } else {
        c.undo = c.undo.filter((u) => u.uid !== uid);
        refused = [answer.message, answer.status === 'already' ? 'warn' : 'error'];
      }
    });
    if (refused) say(refused[0], refused[1]);
    else if (stored && !c.outbox.size) say(stored, 'ok');
    const waiting = [...c.outbox.keys()].filter((uid) => answers[uid] && answers[uid].status === 'retry');
    if (waiting.length) say(answers[waiting[0]].message, 'warn');
  }

  function selected() {
    const sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return null;
    const range = sel.getRangeAt(0);
    const node = range.startContainer.nodeType === 1 ? range.startContainer : range.startContainer.parentElement;
    const body = node && node.closest('.dc-text');
    if (!body || !root.contains(body) || !body.contains(range.endContainer)) return null;
    const before = document.createRange();
    before.selectNodeContents(body);
    before.setEnd(range.startContainer, range.startOffset);
    const start = points(before.toString()).length;
    const chosen = range.toString();
    return { utterance: Number(body.dataset.utterance), start, end: start + points(chosen).length, text: chosen };
  }

  function buildText(step) {
    const d = c.data;
    const utterances = d.steps[String(step)];
    const spans = live().filter((s) => s.scope === 'span' && same(s, placeOf('span', step)));
    const signature = JSON.stringify([d.token, step, utterances ? utterances.length : -1,
                                      spans.map((s) => [s.uid, s.utterance, s.start, s.end, s.label])]);
    if (signature === c.shownText) return;
    c.shownText = signature;
    text.textContent = '';
    if (!utterances) {
      text.appendChild(el('div', 'dc-empty', utterances === undefined && Object.keys(d.steps).length
        ? 'The text of this ' + d.unit.toLowerCase() + ' comes with the page.' : 'Nothing is said at this step.'));
      return;
    }
    utterances.forEach(([speaker, said], index) => {
      const line = el('div', 'dc-utt');
      const who = el('span', 'dc-who', speaker + ':');
      const body = el('span', 'dc-text');
      body.dataset.utterance = String(index);
      const chars = points(said);
      const marks = new Array(chars.length).fill(null);
      spans.filter((s) => s.utterance === index).forEach((s) => {
        for (let i = s.start; i < Math.min(s.end, chars.length); i++) marks[i] = s;
      });
      let i = 0;
      while (i < chars.length) {
        let j = i;
        while (j < chars.length && marks[j] === marks[i]) j++;
        const seg = el(marks[i] ? 'mark' : 'span', marks[i] ? 'dc-span' : '', chars.slice(i, j).join(''));
        if (marks[i]) {
          const colour = (d.colours && d.colours[marks[i].label]) || labelColour(marks[i].label);
          const linked = (marks[i].referents || []).length ? ' → ' + marks[i].referents.join(', ') : '';
          seg.title = marks[i].label + linked + (marks[i].pending ? ' (saving…)' : '');
          seg.dataset.label = marks[i].label;
          seg.style.background = colour + '44';
          seg.style.borderBottom = '3px solid ' + colour;
        }
        body.appendChild(seg);
        i = j;
      }
      line.append(who, body);
      text.appendChild(line);
    });
  }

  function labelColour(name) {
    const label = c.data.labels.find((l) => l.name === name);
    return label ? label.colour : '#7f7f7f';
  }

  function buildGroups() {
    const d = c.data;
    groups.textContent = '';
    c.chips = new Map();
    ['turn', 'span', 'dialog'].forEach((scope) => {
      const labels = d.labels.filter((l) => l.scope === scope);
      if (!labels.length) return;
      const group = el('div', 'dc-group');
      group.appendChild(el('span', 'dc-group-title', d.titles[scope]));
      labels.forEach((label) => {
        const chip = el('span', 'dc-chip');
        chip.dataset.labelKey = label.key || '';
        chip.dataset.label = label.name;
        chip.style.setProperty('--dc-colour', label.colour);
        const button = el('button', 'dc-put', label.key ? label.name + ' [' + label.key + ']' : label.name);
        button.type = 'button';
        button.title = (label.help ? label.help + ' · ' : '') + (label.scope === 'span' ? 'select text first; ' : '')
          + (label.key ? 'key ' + label.key + ', Shift+' + label.key + ' takes it off' : 'click to label');
        const off = el('button', 'dc-x', '×');
        off.type = 'button';
        off.title = 'Take ' + label.name + ' off here';
        off.setAttribute('aria-label', 'Take ' + label.name + ' off');
        // a click leaves the focus where it was (the player takes the next arrow key) and keeps a text selection
        [button, off].forEach((b) => { b.onmousedown = (e) => e.preventDefault(); });
        button.onclick = () => put(label, c.step);
        off.onclick = () => takeOff(label, c.step);
        chip.append(button, off);
        group.appendChild(chip);
        c.chips.set(label.name, chip);
      });
      groups.appendChild(group);
    });
  }

  function render() {
    const d = c.data;
    if (!d || !c.step) return;
    where.textContent = d.unit + ' ' + c.step;
    root.dataset.dialog = d.dialog;  // where a label key labels now (tests wait on it)
    root.dataset.step = String(c.step);
    root.dataset.pending = String(c.outbox.size);  // writes not answered yet (0: every one stored or refused)
    buildText(c.step);
    d.labels.forEach((label) => {
      const chip = c.chips.get(label.name);
      if (!chip) return;
      const here = labelAt(label, c.step);
      const on = here.length > 0;
      if (on) chip.dataset.labelSet = '1'; else delete chip.dataset.labelSet;
      chip.classList.toggle('dc-pending', here.some((s) => s.pending));
      chip.lastChild.hidden = !on;
    });
    note.placeholder = 'Note on ' + d.unit.toLowerCase() + ' ' + c.step + ' (Ctrl+Enter saves)';
  }

  function saveNote() {
    const d = c.data;
    const said = note.value.trim();
    if (!d || !said) { say('Write a note first.', 'warn'); return; }
    const write = { uid: newUid(), kind: 'note', dialog: d.dialog, round: d.round, turn: c.step, text: said };
    Object.defineProperty(write, 'at', { value: null, enumerable: false });
    c.outbox.set(write.uid, write);
    say('Saving the note…', 'pending');
    flush();
  }
  noteSave.onmousedown = (e) => e.preventDefault();
  noteSave.onclick = saveNote;
  note.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); saveNote(); }
    if (event.key === 'Escape') note.blur();
  });

  c.onKey = (event) => {
    if (c.lastEvent === event) return;
    c.lastEvent = event;
    const d = c.data;
    if (!root.isConnected || !d || !c.step) return;
    const t = event.target;
    const typing = t && t.nodeType === 1 && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));
    if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && keyOf(event) === 'z') {
      if (typing) return;  // the field's own undo
      event.preventDefault();
      undo();
      return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    const key = keyOf(event);
    const label = d.labels.find((l) => l.key && l.key.toLowerCase() === key);
    if (!label) return;
    trace('key', key, event.shiftKey, c.step);
    event.preventDefault();
    if (event.shiftKey) takeOff(label, c.step); else put(label, c.step);
  };

  c.onStep = (event) => {
    const d = c.data;
    if (!d || !event.detail || event.detail.key !== d.player || event.detail.step === c.step) return;
    c.step = event.detail.step;
    render();
  };

  c.update = (data) => {
    const fresh = data.token !== c.token;
    trace('update', data.token, data.seq, data.step, playerStep());
    c.data = data;
    c.seq = Math.max(c.seq, data.seq || 0);
    if (c.inFlight && (data.seq || 0) >= c.inFlight) { c.inFlight = 0; c.unanswered = 0; stopWatch(); }
    answered(data.answers || {});
    // every write sent answered (the answers of a batch can come with a later run, or the page's): none in flight
    if (c.inFlight && ![...c.outbox.keys()].some((uid) => c.sent.has(uid))) {
      c.inFlight = 0;
      c.unanswered = 0;
      stopWatch();
    }
    if (fresh) {
      c.token = data.token;
      c.shownText = null;
      c.undo = [];
      buildGroups();
    }
    c.step = playerStep() || (fresh ? data.step : c.step || data.step);
    render();
    if (c.outbox.size) {
      const waiting = [...c.outbox.keys()].every((uid) => (data.answers || {})[uid]);  // all answered "retry"
      // the latest batch answered, some of its writes not (past the 200 of a batch): the rest go now
      if (waiting) { clearTimeout(c.retryTimer); c.retryTimer = setTimeout(flush, 2000); } else flush(!c.inFlight);
    }
  };
  return c;
}

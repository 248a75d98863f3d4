// The Play page's game (ui/play/component.py), an st.components.v2 component: the corpus's game (its createGame, in
// corpora/<name>/views/play.js, appended to this file) inside the shell every game shares: where the play stands,
// the score beside the human's at the same step, the step's Done control (with a reply field where the corpus has
// one), the human's move after one's own (on request), and the play's run file to download. Every move is drawn in
// the browser; Done sends the step's move to the server (trigger "done"), which checks and saves it in the store,
// scores the play with the corpus's own run scoring and sends the next step.
//
// Contract for tests outside the repository: the root has data-play and data-step (the step being played, set once
// it is drawn; n + 1 when the play is over, with data-play-finished); the Done control has data-play-done; the score
// shown is data-play-score="<number>" ("" while there is none); the run file is the link data-play-export; each row
// of the step's figures has data-figure (its name), data-yours and data-human (the values, unrounded).
// Everything from the corpus arrives as data and is set with textContent, never as markup.
//
// createGame(area, shell) gets the element to draw in and the shell ({setup, changed(), measure(event), trace()})
// and returns {load(setup), show(view, step), move(), ready(), human(panel, move), describe(move)}.
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let shell = parentElement.__playShell;
  if (!shell) {
    shell = createShell(parentElement);
    parentElement.__playShell = shell;
  }
  shell.trigger = setTriggerValue;
  shell.update(data);
  const onKey = (event) => shell.onKey(event);
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function figure(value, digits = 3) {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(digits) : '–';
}

function createShell(parent) {
  const root = el('div', 'pl-root');
  root.setAttribute('data-play', '');
  const head = el('div', 'pl-head');
  const where = el('span', 'pl-where');
  const scoreBox = el('span', 'pl-score-box');
  const scoreLabel = el('span', 'pl-score-label');
  const score = el('b', 'pl-score', '–');
  score.setAttribute('data-play-score', '');
  const human = el('span', 'pl-human');
  scoreBox.append(scoreLabel, score, human);
  head.append(where, scoreBox);
  const area = el('div', 'pl-game');
  const bar = el('div', 'pl-bar');
  const reply = document.createElement('input');
  reply.type = 'text';
  reply.className = 'pl-reply';
  reply.maxLength = 2000;
  reply.placeholder = 'Your reply (optional)';
  reply.setAttribute('aria-label', 'Your reply');
  const done = el('button', 'pl-done', 'Done');
  done.type = 'button';
  done.setAttribute('data-play-done', '');
  const exported = el('a', 'pl-export', 'Download the play (run file)');
  exported.setAttribute('data-play-export', '');
  bar.append(reply, done, exported);
  const message = el('div', 'pl-message');
  message.setAttribute('role', 'status');
  const humanBox = el('div', 'pl-human-move');
  const figures = el('table', 'pl-figures');
  root.append(head, area, bar, message, humanBox, figures);
  parent.appendChild(root);

  const s = {
    root, data: null, token: null, step: null, sent: 0, id: Math.random().toString(36).slice(2), pending: null, game: null, trigger: null, url: null,
    setup: null,
  };

  // What the shell and the game did, the latest 100 to 200 entries, kept on the root for a failing browser test
  // and the benchmarks (latencies of drawing a move, in ms)
  function trace(...entry) {
    const log = root.__trace || (root.__trace = []);
    log.push([Math.round(performance.now() * 10) / 10, ...entry]);
    if (log.length > 400) log.splice(0, 200);
  }

  const api = {
    get setup() { return s.setup; },
    changed() { refreshDone(); },
    trace,
    // a move drawn: how long after its input event the handler ended, and when the next frame began
    measure(event) {
      const began = event && event.timeStamp ? event.timeStamp : performance.now();
      const handled = performance.now() - began;
      requestAnimationFrame(() => trace('frame', event ? event.type : 'move', handled, performance.now() - began));
    },
  };
  s.game = createGame(area, api);

  function refreshDone() {
    const d = s.data;
    const open = d && d.can_play && !d.finished && !s.pending;
    done.disabled = !open || !s.game.ready();
    reply.disabled = !open;
  }

  function send(attempt) {
    if (!s.pending || !s.trigger) return;
    trace('done', s.pending.step, attempt);
    s.trigger('done', s.pending);
    awaitAnswer(attempt);
  }

  // A Done no run answers (the connection dropped, the server restarted) is sent again once the app is idle; one
  // sent twice without an answer is followed by a click on the hidden button the server draws for a run of the
  // whole page (ui/shell/reconnect.py: a server that has not run this page ignores a run of the game's fragment),
  // then sent a third time, as the step player does with its reports.
  function awaitAnswer(attempt) {
    clearTimeout(s.answerTimer);
    const check = () => {
      if (!s.pending || !root.isConnected) return;
      const app = document.querySelector('[data-testid="stApp"]');
      if (app && (app.dataset.testConnectionState !== 'CONNECTED' || app.dataset.testScriptState === 'running')) {
        s.answerTimer = setTimeout(check, 1000);
        return;
      }
      if (attempt === 1) {
        const box = s.data && s.data.page_run;
        const button = box && document.querySelector('.st-key-' + box + ' button');
        trace('page run', Boolean(button));
        if (button) button.click();
        awaitAnswer(2);
      } else if (attempt === 0 || attempt === 2) {
        send(attempt + 1);
      }
    };
    s.answerTimer = setTimeout(check, 4000);
  }

  done.onclick = () => {
    const d = s.data;
    if (!d || done.disabled) return;
    s.sent += 1;
    s.pending = { token: `${s.id}:${s.sent}`, step: d.step, move: s.game.move(), reply: reply.value };
    done.textContent = 'Saving…';
    refreshDone();
    send(0);
  };

  s.onKey = (event) => {
    if (s.lastEvent === event) return;  // each call of the component listens: an event is handled once
    s.lastEvent = event;
    if (!root.isConnected || !s.game.key) return;
    const t = event.target;
    if (t && t !== document.body && !root.contains(t)
        && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
    if (t && t === reply) return;
    s.game.key(event);
  };

  function showFigures(rows) {
    figures.textContent = '';
    if (!rows || !rows.length) return;
    const head = el('tr');
    ['', 'you', 'the human'].forEach((text) => head.appendChild(el('th', null, text)));
    figures.appendChild(head);
    rows.forEach(([name, yours, theirs]) => {
      const row = el('tr');
      row.setAttribute('data-figure', name);  // the values unrounded, for tests outside the repository
      row.setAttribute('data-yours', typeof yours === 'number' ? String(yours) : '');
      row.setAttribute('data-human', typeof theirs === 'number' ? String(theirs) : '');
      row.append(el('td', null, name), el('td', null, figure(yours)), el('td', null, figure(theirs)));
      figures.appendChild(row);
    });
  }

  function showHuman(d) {
    humanBox.textContent = '';
    const before = d.view && d.view.human_before;
    if (!d.show_human || !before || d.step <= 1) return;
    humanBox.appendChild(el('div', 'pl-human-title', `The human's move at ${d.unit} ${d.step - 1}:`));
    const panel = el('div', 'pl-human-panel');
    humanBox.appendChild(panel);
    s.game.human(panel, before);
  }

  function exportLink(d) {
    if (s.url) URL.revokeObjectURL(s.url);
    s.url = null;
    if (!d.export || !d.export.text) {
      exported.removeAttribute('href');
      exported.hidden = true;
      return;
    }
    s.url = URL.createObjectURL(new Blob([d.export.text], { type: 'application/x-ndjson' }));
    exported.href = s.url;
    exported.download = d.export.name;
    exported.hidden = false;
  }

  s.update = (d) => {
    trace('data', d.step);  // the page's answer arrived (its drawing is timed to the 'update' below)
    s.data = d;
    if (s.pending && d.answered === s.pending.token) {
      s.pending = null;
      clearTimeout(s.answerTimer);
    }
    if (d.token !== s.token) {  // another play (dialog, seat or person): the game starts afresh
      s.token = d.token;
      s.setup = d.setup;
      s.step = null;
      s.game.load(d.setup);
    }
    if (d.step !== s.step || d.redraw !== s.redraw) {
      s.step = d.step;
      s.redraw = d.redraw;
      reply.value = '';
      s.game.show(d.view, d.step);
    }
    where.textContent = d.finished ? `All ${d.n_steps} ${d.unit}s played` : `${d.unit[0].toUpperCase()}${d.unit.slice(1)} ${d.step} of ${d.n_steps}`;
    scoreLabel.textContent = `${d.score_label}: `;
    score.textContent = figure(d.score);
    score.setAttribute('data-play-score', typeof d.score === 'number' && Number.isFinite(d.score) ? String(d.score) : '');
    human.textContent = typeof d.human === 'number' && Number.isFinite(d.human) ? ` · the human at this step: ${figure(d.human)}` : '';
    done.textContent = s.pending ? 'Saving…' : d.done_label;
    reply.hidden = !d.reply;
    message.textContent = d.message || (d.can_play ? '' : d.why_not || '');
    message.className = `pl-message${d.message_kind ? ` pl-${d.message_kind}` : ''}`;
    showFigures(d.figures);
    showHuman(d);
    exportLink(d);
    refreshDone();
    root.toggleAttribute('data-play-finished', Boolean(d.finished));
    root.setAttribute('data-step', String(d.step));
    trace('update', d.step, d.answered);
  };
  return s;
}

// The step player (ui/replay/step_player.py), an st.components.v2 component: it receives a dialog's transcript and
// timeline once and the steps of a window around the step shown (pictures as media URLs, facts, event, table),
// then steps, scrubs and plays in the browser. Each step the reader goes to is reported back (trigger "step";
// on the Replay, a step whose neighbours the player has when the reader rests on it: "settle"), so that the
// server puts it into the URL and the panels that depend on it follow; the player does not wait for that. The step the server sends is applied only when its "goto" counter moved (a link, Back/Forward).
// Contract for tests and benchmarks: the root has data-step-player, and data-step names the step shown, set
// once its pictures are decoded and drawn. Everything from the corpus arrives as data and is set with
// textContent, never as markup.
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let player = parentElement.__stepPlayer;
  if (!player) {
    player = createPlayer(parentElement);
    parentElement.__stepPlayer = player;
  }
  player.trigger = setTriggerValue;
  player.update(data);
  // A listener of its own per call: the runtime may clean up an earlier call after this one has started. The
  // player handles each event once, however many calls are listening.
  const onKey = (event) => player.onKey(event);
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function createPlayer(parent) {
  const root = el('div', 'sp-root');
  root.setAttribute('data-step-player', '');
  root.tabIndex = -1;
  const bar = el('div', 'sp-bar');
  const previous = el('button', 'sp-button sp-prev', '◀');
  const play = el('button', 'sp-button sp-play', '▶ Play');
  const next = el('button', 'sp-button sp-next', '▶');
  [previous, play, next].forEach((b) => { b.type = 'button'; });
  previous.title = 'Previous (←)'; next.title = 'Next (→)'; play.title = 'Play / pause (Space)';
  previous.setAttribute('aria-label', 'Previous step'); next.setAttribute('aria-label', 'Next step');
  // the lines after the step: hidden (what had been said so far) or shown greyed, in the browser alone
  const allBox = el('label', 'sp-all');
  const all = document.createElement('input');
  all.type = 'checkbox';
  allBox.append(all, document.createTextNode(' all lines'));
  allBox.title = 'Show the lines after this step too (greyed)';
  const where = el('span', 'sp-where');
  where.setAttribute('aria-live', 'polite');
  const timeline = el('div', 'sp-timeline');
  timeline.setAttribute('role', 'slider');
  timeline.tabIndex = 0;
  const cursor = el('div', 'sp-cursor');
  const ticks = el('div', 'sp-ticks');
  timeline.append(ticks, cursor);
  bar.append(previous, play, next, where, allBox);
  const legend = el('div', 'sp-legend');
  const body = el('div', 'sp-body');
  const pictures = el('div', 'sp-pictures');
  const side = el('div', 'sp-side');
  const eventBox = el('div', 'sp-event');
  const notes = el('div', 'sp-notes');
  const facts = el('dl', 'sp-facts');
  const table = el('div', 'sp-table');
  const lines = el('div', 'sp-transcript');
  side.append(eventBox, notes, facts, lines);
  const stage = el('div', 'sp-stage');
  stage.append(pictures, table);  // the step's table under its pictures, the transcript beside them
  body.append(stage, side);
  root.append(bar, timeline, legend, body);
  parent.appendChild(root);

  const p = {
    root, token: null, goto: null, current: 0, n: 0, steps: {}, images: new Map(), data: null,
    timer: null, dragging: false, askedWindow: null, lineNodes: [], trigger: null,
  };

  // What the player did, the latest 100 to 200 entries, kept on its root for a failing browser test to save
  function trace(...entry) {
    const log = root.__trace || (root.__trace = []);
    log.push([Math.round(performance.now()), ...entry]);
    if (log.length > 200) log.splice(0, 100);
  }

  function image(src, caption) {
    let entry = p.images.get(src);
    if (!entry) {
      const img = new Image();
      img.decoding = 'async';
      img.alt = caption;
      img.src = src;
      entry = { img, done: false };
      entry.ready = img.decode().then(() => true, () => false).then((ok) => { entry.done = true; return ok; });
      p.images.set(src, entry);
    }
    return entry;
  }

  function report(step, attempt = 0) {
    // Reported lightly (the Replay), a step whose neighbours the browser has starts no run: the settle, once the
    // reader rests on it, runs the page and puts it into the URL. A step near the window's edge is reported
    // at once: that run brings the window on (a reader tapping leaves the player no idle moment to ask for it).
    p.quiet = attempt === 0 && Boolean(p.data && p.data.lightReports) && hasAround(step);
    trace(p.quiet ? 'quiet' : 'report', step, location.search);
    p.reported = step;
    if (!p.quiet) {
      if (p.trigger) p.trigger('step', step);
      awaitAnswer(step, attempt);
    }
    settleLater(step);
  }

  // Whether the browser holds the steps a reader goes to next from ``step`` (the server's _enough_around: half
  // the window ahead and behind, as far as the dialog goes).
  function hasAround(step) {
    for (let s = Math.max(1, step - 2); s <= Math.min(p.n, step + 6); s++) if (!p.steps[s]) return false;
    return true;
  }

  // A step reported lightly (the Replay) has the page run once the reader rests on it: the settle is a report
  // of the step, its run puts it into the URL and the page's panels of the step follow
  // (ui/replay/step_player.report_lightly). Unanswered, it is reported again (awaitAnswer).
  const SETTLE_MS = 600;
  function settleLater(step) {
    clearTimeout(p.settleTimer);
    if (!p.data || !p.data.lightReports) return;
    p.settleTimer = setTimeout(() => {
      if (!root.isConnected || p.current !== step || !p.trigger || p.dragging) return;
      trace('settle', step);
      // a step whose payload never came (its run was cut short by a newer one): the settle's run sends it again
      p.trigger('settle', p.steps[step] ? step : { step, missing: true });
      awaitAnswer(step, 0);
    }, SETTLE_MS);
  }

  // A report that no run answers is sent again; one sent twice without an answer is followed by a click on the
  // hidden button the server draws for a run of the whole page (ui/replay/step_player._page_run_key), then sent a third
  // time. After a fail-over the other server ignores a run of the player's fragment until it has run the page
  // itself (tests/e2e/test_two_servers.py). Nothing is done while a run goes on or the connection is down.
  function awaitAnswer(step, attempt) {
    clearTimeout(p.answerTimer);
    const updatesThen = p.updates;
    const check = () => {
      if (!root.isConnected || p.current !== step) return;  // moved on
      // answered: a run since that knows the step (a run of the whole page that started before the report, e.g.
      // the settle of the step before, brings the step before and is no answer: the report is sent again)
      if (p.updates !== updatesThen && p.data && p.data.step === step) return;
      const app = document.querySelector('[data-testid="stApp"]');
      if (app && (app.dataset.testConnectionState !== 'CONNECTED' || app.dataset.testScriptState === 'running')) {
        p.answerTimer = setTimeout(check, 1000);
        return;
      }
      if (attempt === 1) {
        const button = p.data && p.data.pageRun && document.querySelector('.st-key-' + p.data.pageRun + ' button');
        trace('page run', Boolean(button));
        if (button) button.click();
        awaitAnswer(step, 2);
      } else if (attempt === 0 || attempt === 2) {
        report(step, attempt + 1);
      }
    };
    p.answerTimer = setTimeout(check, 3000);
  }

  // A step the reader goes to is reported once it is on the screen: after the next paint, so that what the page
  // does on a report (Streamlit marks every element as running) does not hold up drawing the step. Steps gone to
  // within one frame (a key held down) send one report, the last. A hidden tab paints nothing: at once there.
  function reportAfterPaint(step) {
    p.pendingReport = step;
    if (p.reportQueued) return;
    const send = () => {
      p.reportQueued = false;
      const pending = p.pendingReport;
      p.pendingReport = null;
      if (pending !== null && root.isConnected) report(pending);
    };
    if (document.hidden) { send(); return; }
    p.reportQueued = true;
    requestAnimationFrame(() => setTimeout(send, 0));
  }

  function stepAt(clientX) {
    const box = timeline.getBoundingClientRect();
    const x = Math.min(Math.max(clientX - box.left, 0), box.width - 1);
    return Math.min(p.n, Math.max(1, Math.floor((x / Math.max(box.width, 1)) * p.n) + 1));
  }

  function go(step, quiet) {
    step = Math.min(Math.max(1, step), p.n);
    if (step === p.current) return;
    clearTimeout(p.settleTimer);  // the reader moves on: the page waits until they rest again
    show(step);
    // players stepping together (Compare) follow each other in the browser; a shorter one stays on its last step
    if (!quiet && p.data && p.data.group) {
      document.dispatchEvent(new CustomEvent('step-player-group', { detail: { group: p.data.group, step, from: root } }));
    }
    if (!quiet && !p.dragging && (!p.data || p.data.reports !== false)) reportAfterPaint(step);
  }

  document.addEventListener('step-player-group', (event) => {
    const { group, step, from } = event.detail;
    if (from === root || !root.isConnected || !p.data || p.data.group !== group) return;
    const own = Math.min(step, p.n);
    if (own !== p.current) show(own);
  });

  function across(delta) {
    // past either end of a round, the corpus's next (previous) round: the server opens it
    const [round, rounds] = (p.data && p.data.rounds) || [0, 0];
    if (round && p.trigger && ((delta > 0 && round < rounds) || (delta < 0 && round > 1))) {
      trace('round', delta);
      p.trigger('round', delta);
    }
  }

  function stepBy(delta) {
    const target = p.current + delta;
    if (target < 1 || target > p.n) across(delta);
    else go(target);
  }

  function stop() {
    if (p.timer) { clearInterval(p.timer); p.timer = null; }
    play.textContent = '▶ Play';
    root.removeAttribute('data-playing');
  }

  function start() {
    if (p.timer) return;
    if (p.current >= p.n) go(1);
    const seconds = Math.max(0.2, Number((p.data && p.data.speed) || 1));
    p.timer = setInterval(() => {
      if (p.current < p.n) { go(p.current + 1); return; }
      stop();
      // Present on a slice: the server opens the slice's next dialog, which plays on
      if (p.data && p.data.continues && p.trigger) p.trigger('round', 1);
    }, seconds * 1000);
    play.textContent = '❚❚ Pause';
    root.setAttribute('data-playing', '');
  }

  all.onchange = () => { p.showAll = all.checked; if (p.current) chrome(p.current); };
  previous.onclick = () => stepBy(-1);
  next.onclick = () => stepBy(1);
  play.onclick = () => (p.timer ? stop() : start());
  timeline.addEventListener('pointerdown', (event) => {
    p.dragging = true;
    try { timeline.setPointerCapture(event.pointerId); } catch (e) { /* a synthetic pointer: nothing to capture */ }
    go(stepAt(event.clientX));
    event.preventDefault();
  });
  timeline.addEventListener('pointermove', (event) => { if (p.dragging) go(stepAt(event.clientX)); });
  const release = () => { if (p.dragging) { p.dragging = false; reportAfterPaint(p.current); } };
  timeline.addEventListener('pointerup', release);
  timeline.addEventListener('pointercancel', release);

  p.onKey = (event) => {
    if (p.lastEvent === event) return;
    p.lastEvent = event;
    if (!root.isConnected) return;
    if (event.altKey && event.code === 'KeyN' && p.data && p.data.notesKey) {  // the notes, one key away
      event.preventDefault();
      openNotes();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || !p.n) return;
    const t = event.target;
    // Enter, with nothing else taking it: the page's next-item button ("Done, next", "next case"), if it has one
    if (event.key === 'Enter' && !event.shiftKey && !event.repeat && (!t || t.nodeType !== 1 || t === document.body || root.contains(t))) {
      const button = document.querySelector('[class*="st-key-item_flow_next"] button:not([disabled])');
      if (button) {
        event.preventDefault();
        clearTimeout(p.settleTimer);  // the next item's run moves the page: no settle of this step after it
        trace('next item');
        button.click();
      }
      return;
    }
    if (t && t.nodeType === 1 && t !== document.body && !root.contains(t)
        && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT', 'BUTTON'].includes(t.tagName) || t.getAttribute('role') === 'slider')) return;
    if (p.data && p.data.keys === false) return;
    const moves = { ArrowLeft: () => stepBy(-1), ArrowRight: () => stepBy(1), Home: () => go(1), End: () => go(p.n),
                    ' ': () => (p.timer ? stop() : start()) };
    const move = moves[event.key];
    if (!move) return;
    trace('key', event.key, p.current);
    event.preventDefault();
    if (event.key !== ' ') stop();
    move();
  };

  function openNotes() {
    const field = document.querySelector('[data-notes-field]');  // the coding column's notes field
    if (field) {
      field.focus({ preventScroll: true });
      field.scrollIntoView({ block: 'nearest' });
      return;
    }
    const summary = [...document.querySelectorAll('[data-testid="stExpander"] summary')]
      .find((node) => node.textContent.trim().startsWith('Notes ('));
    if (!summary) return;
    const details = summary.closest('details');
    if (details && !details.open) summary.click();
    setTimeout(() => {
      const area = details && details.querySelector('textarea');
      if (area) area.focus({ preventScroll: true });
      (details || summary).scrollIntoView({ block: 'nearest' });
    }, 0);
  }

  function buildDialog(data) {
    buildTimeline(data);
    buildLines(data);
  }

  // The timeline's bars and marks fill in as the window moves: redrawn alone, the transcript left as it is.
  function buildTimeline(data) {
    ticks.textContent = '';
    const values = data.timeline.map((t) => t.value).filter((v) => v !== null);
    const top = values.length ? Math.max(...values, 1e-9) : 1;
    data.timeline.forEach((t, i) => {
      const tick = el('div', 'sp-tick');
      tick.dataset.step = String(i + 1);
      tick.title = (data.unit + ' ' + (i + 1)) + (t.title ? ': ' + t.title : '');
      const barNode = el('div', 'sp-value');
      barNode.style.height = t.value === null ? '0' : Math.max(6, Math.round((100 * t.value) / top)) + '%';
      const marks = el('div', 'sp-marks', t.marks.map((m) => data.glyphs[m] || '').join(''));
      tick.append(barNode, marks);
      ticks.appendChild(tick);
    });
    legend.textContent = (data.legend || '') + ' · keys: ←/→ step, Home/End, Space plays' + (data.notesKey ? ', Alt+N notes' : '');
  }

  function buildLines(data) {
    lines.textContent = '';
    p.lineNodes = data.lines.map((line) => {
      const node = el('div', 'sp-line ' + (line.lead ? 'sp-lead' : 'sp-follow'));
      node.dataset.turn = String(line.turn);
      const meta = el('div', 'sp-meta', line.who + ' · ' + data.unit.toLowerCase() + ' ' + line.turn + (line.time ? ' · ' + line.time : ''));
      const text = el('div', 'sp-text');
      if (line.segments) {
        line.segments.forEach(([piece, match]) => text.appendChild(match ? el('mark', '', piece) : document.createTextNode(piece)));
      } else {
        text.textContent = line.text;
      }
      node.append(meta, text);
      lines.appendChild(node);
      return node;
    });
    if (!data.lines.length) lines.appendChild(el('div', 'sp-empty', 'Nothing is said in this ' + data.unit.toLowerCase() + '.'));
  }

  function chrome(step) {
    const d = p.data;
    where.textContent = (d.roundLabel ? d.roundLabel + ' · ' : '') + d.unit + ' ' + step + ' of ' + p.n;
    timeline.setAttribute('aria-valuemin', '1');
    timeline.setAttribute('aria-valuemax', String(p.n));
    timeline.setAttribute('aria-valuenow', String(step));
    timeline.setAttribute('aria-label', d.unit);
    cursor.style.left = ((step - 1) / p.n) * 100 + '%';
    cursor.style.width = 100 / p.n + '%';
    previous.disabled = step <= 1 && !(d.rounds && d.rounds[0] > 1);
    next.disabled = step >= p.n && !(d.rounds && d.rounds[0] && d.rounds[0] < d.rounds[1]);
    let first = null;
    p.lineNodes.forEach((node) => {
      const turn = Number(node.dataset.turn);
      node.classList.toggle('sp-current', turn === step);
      node.classList.toggle('sp-later', turn > step);
      node.hidden = turn > step && !p.showAll;
      if (turn === step && !first) first = node;
    });
    // Scrolling reads the layout: after the step's pictures are drawn, not before
    const target = first || p.lineNodes.filter((n) => Number(n.dataset.turn) < step).pop();
    // (the box is its lines' offsetParent: their offsetTop counts from its top)
    if (target) setTimeout(() => { if (p.current === step) lines.scrollTop = Math.max(0, target.offsetTop - lines.clientHeight / 3); }, 0);
    const entry = p.steps[step];
    eventBox.textContent = entry ? entry.event : '';
    eventBox.className = 'sp-event sp-' + (entry ? entry.level : 'info');
    eventBox.hidden = !(entry && entry.event);
    notes.textContent = '';
    facts.textContent = '';
    table.textContent = '';
    if (!entry) return;
    entry.notes.forEach((n) => notes.appendChild(el('div', 'sp-note', n)));
    entry.facts.forEach(([label, value]) => { facts.append(el('dt', '', label), el('dd', '', value)); });
    if (entry.table.title) table.appendChild(el('div', 'sp-table-title', entry.table.title));
    if (entry.table.rows.length) {
      const t = el('table');
      const head = el('tr');
      entry.table.columns.forEach((c) => head.appendChild(el('th', '', c)));
      t.appendChild(head);
      entry.table.rows.forEach((r) => { const row = el('tr'); r.forEach((c) => row.appendChild(el('td', '', c))); t.appendChild(row); });
      table.appendChild(t);
    }
  }

  function show(step) {
    trace('show', step);
    p.current = step;
    chrome(step);
    // what follows the step in the browser (the coding column) hears of it at once, before its pictures are drawn
    document.dispatchEvent(new CustomEvent('step-player-shown', { detail: { key: p.data && p.data.playerKey, step } }));
    const entry = p.steps[step];
    if (!entry) {
      root.setAttribute('data-waiting', String(step));
      pictures.querySelectorAll('.sp-slot').forEach((slot) => slot.classList.add('sp-loading'));
      return;
    }
    const wanted = entry.pictures.map((pic) => (pic.src ? image(pic.src, pic.caption) : null));
    const draw = () => {
      if (p.current !== step) return;  // the reader has moved on: that step draws instead
      while (pictures.children.length > entry.pictures.length) pictures.lastChild.remove();
      entry.pictures.forEach((pic, i) => {
        let figure = pictures.children[i];
        if (!figure) {
          figure = el('figure', 'sp-figure');
          figure.append(el('div', 'sp-slot'), el('figcaption'));
          pictures.appendChild(figure);
        }
        const slot = figure.firstChild;
        slot.classList.remove('sp-loading');
        slot.style.aspectRatio = pic.aspect ? String(pic.aspect) : '';
        slot.style.maxWidth = pic.width ? pic.width + 'px' : '';  // never wider than the picture: no blur
        if (wanted[i]) {
          if (slot.firstChild !== wanted[i].img) slot.replaceChildren(wanted[i].img);
        } else {
          slot.replaceChildren(el('div', 'sp-missing', pic.caption));
        }
        figure.lastChild.textContent = pic.src ? pic.caption : '';
      });
      pictures.dataset.count = String(entry.pictures.length);  // many (runs beside the humans): a grid
      root.removeAttribute('data-waiting');
      root.dataset.step = String(step);
      trace('drawn', step);
      askWindow();
    };
    // pictures decoded already (the window's, decoded ahead) are drawn in this task, the others when decoded
    if (wanted.every((w) => !w || w.done)) draw();
    else Promise.all(wanted.map((w) => (w ? w.ready : true))).then(draw);
  }

  // The steps around the one shown are asked for once the page's own run is over (a replay opens as fast as
  // with its step alone), and again while the server says it has more (it computes them a slice per run).
  function askWindow() {
    const d = p.data;
    if (!d || !p.trigger || p.askedWindow === d.token + '|' + d.wideRun) return;
    // with the steps next to the one shown in the browser, the next report's run brings the rest: no run of its own.
    // A step the server sent but this player lacks (it was built anew) is asked for again, a few times at most.
    const near = [];
    // (the server's _enough_around: half the window ahead and behind)
    for (let s = p.current - 2; s <= p.current + 6; s++) if (s >= 1 && s <= p.n) near.push(s);
    const missing = !near.every((s) => p.steps[s]);
    if (d.wide && (!missing || (p.asks || 0) >= 5) && !d.more) return;
    if (d.wide && !missing) return;
    // Asked once the page has been idle a moment: not while the reader is doing something (a click, a key,
    // Back), whose own run comes first and re-centres the window anyway.
    // Idle: no run going and none about to follow (app.py marks a run that st.rerun() follows with "rerun"),
    // and no drag under way. A request that met a run of the page could take that run's place.
    const app = document.querySelector('[data-testid="stApp"]');
    const lastRun = () => { const marks = document.querySelectorAll('style[data-app-run]');
                            return marks.length ? marks[marks.length - 1].dataset.appRun : null; };
    const idle = () => !p.dragging && (!app || (app.dataset.testScriptState !== 'running' && lastRun() !== 'rerun'));
    clearTimeout(p.askTimer);
    const later = () => {
      clearTimeout(p.askTimer);
      p.askTimer = setTimeout(() => {
        if (p.data !== d || !root.isConnected) return;
        if (!idle()) { wait(); return; }
        p.askedWindow = d.token + '|' + d.wideRun;
        p.asks = (p.asks || 0) + (d.wide ? 1 : 0);
        // what it has of the window already, which the server does not send again
        const have = Object.keys(p.steps).map(Number).filter((s) => s >= p.current - 4 && s <= p.current + 12);
        trace('window', d.wideRun, have.length);
        p.trigger('window', { have });
      }, 250);
    };
    // the script state alone is watched: a run that st.rerun() follows ("rerun") flips it again when its
    // follower starts and ends
    const wait = () => {
      if (!app) return;
      const watch = new MutationObserver(() => { if (idle()) { watch.disconnect(); later(); } });
      watch.observe(app, { attributes: true, attributeFilter: ['data-test-script-state'] });
    };
    if (idle()) later(); else wait();
  }
  ['pointerdown', 'keydown', 'popstate'].forEach((type) => window.addEventListener(type, () => clearTimeout(p.askTimer), true));
  // Back / Forward: the address bar's step wins, a settle still to come would say the step left behind
  window.addEventListener('popstate', () => clearTimeout(p.settleTimer), true);

  p.update = (data) => {
    p.updates = (p.updates || 0) + 1;
    const fresh = data.token !== p.token;
    p.data = data;
    p.n = data.n;
    if (fresh) {
      stop();
      p.token = data.token;
      p.steps = {};
      p.images = new Map();
      p.askedWindow = null;
      p.asks = 0;
      p.reported = null;
      p.pendingReport = null;  // a step of the dialog before is not this one's
      p.current = 0;
      p.showAll = Boolean(data.showAll);
      all.checked = p.showAll;
      root.removeAttribute('data-step');
      pictures.textContent = '';
      buildDialog(data);
    } else if (JSON.stringify(data.timeline) !== p.timelineKey) {
      buildTimeline(data);
    }
    p.timelineKey = JSON.stringify(data.timeline);
    Object.entries(data.steps).forEach(([step, entry]) => { p.steps[Number(step)] = entry; });
    // decode ahead, the steps nearest the one shown first (the next key press wants those)
    const around = p.current || data.step;
    Object.keys(data.steps).map(Number).sort((a, b) => Math.abs(a - around) - Math.abs(b - around) || b - a)
      .forEach((step) => data.steps[step].pictures.forEach((pic) => { if (pic.src) image(pic.src, pic.caption); }));
    root.dataset.loaded = String(Object.keys(p.steps).length);  // steps in the browser (benchmarks wait on it)
    const moved = fresh || data.goto !== p.goto;
    trace('update', data.step, data.goto, fresh, moved, Boolean(data.wide), Boolean(data.more), data.wideRun, location.search);
    p.goto = data.goto;
    // A report that met a run of the player's own (its window) can be lost: the server still at another step
    // than the one reported, with no link moving it, the report is sent once more.
    if (!fresh && !moved && p.reported && !p.quiet && p.reported === p.current && data.step !== p.reported
        && p.retried !== p.reported + '|' + p.goto) {
      p.retried = p.reported + '|' + p.goto;
      trace('retry', p.reported);
      report(p.reported);
    }
    if (moved && data.step !== p.current) show(data.step);
    else if (root.dataset.step !== String(p.current)) show(p.current);  // its step has arrived
    else { chrome(p.current); askWindow(); }
    root.dataset.playerKey = data.playerKey || '';
    root.classList.toggle('sp-workbench', data.layout === 'workbench');
    root.classList.toggle('sp-present', data.layout === 'present');
    root.classList.toggle('sp-narrow', data.layout === 'narrow');
    // Present with no mode chosen: presentation mode in a window of 1280x720 or smaller (asked once)
    if (data.autoLayout && !p.layoutAsked && p.trigger && window.innerWidth <= 1280 && window.innerHeight <= 720) {
      p.layoutAsked = true;
      trace('layout', 'present');
      p.trigger('layout', 'present');
    }
    if (fresh || data.autoplay !== p.autoplay) {  // the server's autoplay switch: on starts, off stops
      p.autoplay = data.autoplay;
      if (data.autoplay) start(); else if (!fresh) stop();
    }
  };
  return p;
}

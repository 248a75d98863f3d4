// The Play page's live game (ui/play/live.py, issue 50), an st.components.v2 component: the shell every corpus's
// live game shares, followed by the corpus's own createGame (its solo game, corpora/<name>/views/play.js, reused
// to draw the canvas, board or grid) and createLiveGame (corpora/<name>/views/live.js). The shell talks to the
// server's live routes directly (ui/server/live_routes.py), never through a Streamlit run:
//
// - a long poll, GET <base>/_live/<game>/events?after=<cursor>&status=<status>, answered at once when there is
//   something new and else within about 20 s; after a failure (a server restarted, nginx sending to the other
//   server) it tries again a second later, from the same cursor;
// - every message or move is sent as POST <base>/_live/<game>/events {client_id, kind, payload}, one at a time
//   and in order, kept in the tab's sessionStorage until the server acknowledges it, and sent again with the same
//   client_id after a failure (the store never doubles it);
// - a reload starts from cursor 0 (the whole game as the store has it) and sends what was not acknowledged.
//
// Events are shown in the store's order (seq). Every text arrives as data and is set with textContent, never as
// markup. Contract for tests outside the repository: the root has data-live-game="<game id>", data-live-role
// (the viewer's role), data-live-status, data-live-cursor (the last event seen) and data-live-pending (events
// not yet acknowledged); each message shown has data-live-message (its
// seq) and data-live-role; the message field data-live-input, its button data-live-send, Finish data-live-finish.
//
// createLiveGame(area, live) gets the element to draw in and `live` ({role, roles, setup, draw, send(kind,
// payload), say(text, kind), changed(), fromThisTab(event)}) and returns {apply(event, catchingUp), caughtUp(), message(text)
// -> payload or an error string, canSend() -> '' or why not} and optionally describe(event) (beside a message),
// refused(item) (the server refused a sent event) and key(event) (a key pressed outside the message field).
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let shell = parentElement.__liveShell;
  if (!shell || shell.id !== data.game_id) {
    if (shell) { shell.stop(); shell.root.remove(); }  // another game: its screen goes (Streamlit's <style> stays)
    shell = createShell(parentElement, data);
    parentElement.__liveShell = shell;
  }
  shell.trigger = setTriggerValue;
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

function delay(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

function createShell(parent, data) {
  const root = el('div', 'lv-root');
  root.setAttribute('data-live-game', String(data.game_id));
  root.setAttribute('data-live-role', data.role || '');
  const head = el('div', 'lv-head');
  const statusLine = el('span', 'lv-status');
  const finish = el('button', 'lv-finish', 'Finish the game');
  finish.type = 'button';
  finish.setAttribute('data-live-finish', '');
  head.append(statusLine, finish);
  const area = el('div', 'lv-game');
  const side = el('div', 'lv-side');
  const chat = el('div', 'lv-chat');
  chat.setAttribute('aria-live', 'polite');
  const compose = el('div', 'lv-compose');
  const input = document.createElement('input');
  input.type = 'text';
  input.className = 'lv-input';
  input.maxLength = data.max_chars || 1000;
  input.placeholder = 'Your message (Enter sends)';
  input.setAttribute('aria-label', 'Your message');
  input.setAttribute('data-live-input', '');
  const sendButton = el('button', 'lv-send', 'Send');
  sendButton.type = 'button';
  sendButton.setAttribute('data-live-send', '');
  compose.append(input, sendButton);
  const note = el('div', 'lv-note');
  note.setAttribute('aria-live', 'polite');
  side.append(chat, compose, note);
  const body = el('div', 'lv-body');
  body.append(area, side);
  root.append(head, body);
  parent.appendChild(root);

  const base = `${data.base || ''}/_live/${data.game_id}`;
  const headers = { 'x-live-game': '1', 'content-type': 'application/json' };
  if (data.player) headers['x-live-player'] = encodeURIComponent(data.player);
  const storeKey = `live-outbox-${data.game_id}-${data.role}`;
  const s = {
    id: data.game_id, cursor: 0, status: data.status, stopped: false, seen: new Set(), outbox: [], sending: false,
    caughtUp: false, trigger: null, counter: 0, prefix: `${(data.role || 'x').replace(/[^A-Za-z]/g, '').slice(0, 8)}-${Math.random().toString(36).slice(2, 10)}`,
  };
  try { s.outbox = JSON.parse(sessionStorage.getItem(storeKey) || '[]'); } catch (e) { s.outbox = []; }

  function say(text, kind) {
    note.textContent = text || '';
    note.className = `lv-note${kind ? ` lv-${kind}` : ''}`;
  }

  function keep() {
    root.setAttribute('data-live-pending', String(s.outbox.length));
    try { sessionStorage.setItem(storeKey, JSON.stringify(s.outbox)); } catch (e) { /* full: kept in memory */ }
  }

  function showStatus() {
    root.setAttribute('data-live-status', s.status);
    root.setAttribute('data-live-cursor', String(s.cursor));
    const other = (data.roles || []).find((r) => r !== data.role) || 'partner';
    statusLine.textContent = s.status === 'waiting' ? `You play: ${data.role}. Waiting for your partner (${other}) to open the invitation…`
      : s.status === 'playing' ? `You play: ${data.role}. Your partner: ${other}.` : 'The game has ended.';
    finish.disabled = s.status !== 'playing';
    refreshCompose();
  }

  function refreshCompose() {
    const why = s.status !== 'playing' ? (s.status === 'waiting' ? 'The game starts when your partner joins.' : 'The game has ended.')
      : (game.canSend ? game.canSend() : '');
    input.disabled = sendButton.disabled = Boolean(why);
    input.title = why || '';
    if (why && s.status === 'playing') input.placeholder = why; else input.placeholder = 'Your message (Enter sends)';
  }

  function showMessage(event) {
    const row = el('div', `lv-message${event.role === data.role ? ' lv-mine' : ''}`);
    row.setAttribute('data-live-message', String(event.seq));
    row.setAttribute('data-live-role', event.role);
    row.append(el('b', null, `${event.role}${event.role === data.role ? ' (you)' : ''}: `),
               document.createTextNode(String(event.payload.text || '')));
    if (game.describe) {
      const extra = game.describe(event);
      if (extra) row.appendChild(extra);
    }
    chat.appendChild(row);
    chat.scrollTop = chat.scrollHeight;
  }

  function apply(events, catchingUp) {
    events.forEach((event) => {
      if (s.seen.has(event.seq)) return;
      s.seen.add(event.seq);
      if (event.kind === 'message') showMessage(event);
      game.apply(event, catchingUp);
    });
  }

  async function poll() {
    while (!s.stopped) {
      if (!root.isConnected) { s.stop(); return; }
      try {
        // the first poll (a load, a reload) answers at once: it names no status the game may still have
        const known = s.caughtUp ? encodeURIComponent(s.status) : '';
        const response = await fetch(`${base}/events?after=${s.cursor}&status=${known}`,
                                     { credentials: 'same-origin', headers: data.player ? { 'x-live-player': headers['x-live-player'] } : {} });
        const answer = await response.json();
        if (!response.ok) {
          say(answer.error || `The server answered ${response.status}.`, 'error');
          if (response.status === 403 || response.status === 404) { s.stop(); return; }
          await delay(1000);
          continue;
        }
        const wasCatchingUp = !s.caughtUp;
        apply(answer.events || [], wasCatchingUp);
        s.cursor = answer.cursor;
        if (wasCatchingUp) { s.caughtUp = true; if (game.caughtUp) game.caughtUp(); flush(); }
        if (answer.game && answer.game.status !== s.status) {
          s.status = answer.game.status;
          if (s.trigger) s.trigger('status', s.status);  // the page shows the export once the game ended
        }
        showStatus();
        if (note.classList.contains('lv-lost')) say('');
        if (s.status === 'finished') { s.stopped = true; return; }
      } catch (error) {
        say('The connection to the server was lost; trying again…', 'lost');
        await delay(1000);
      }
    }
  }

  async function flush() {
    if (s.sending || !s.caughtUp) return;
    s.sending = true;
    try {
      while (s.outbox.length && !s.stopped) {
        const item = s.outbox[0];
        let response;
        try {
          response = await fetch(`${base}/events`, { method: 'POST', credentials: 'same-origin', headers, body: JSON.stringify(item) });
        } catch (error) {
          say('Not sent yet: the connection to the server was lost; trying again…', 'lost');
          await delay(1000);
          continue;
        }
        if (response.status >= 500 || response.status === 429) { await delay(1000); continue; }
        const answer = await response.json().catch(() => ({}));
        s.outbox.shift();
        keep();
        if (!response.ok) {
          say(answer.error || `Not sent (${response.status}).`, 'error');
          if (game.refused) game.refused(item, answer.error || '');
        } else if (note.classList.contains('lv-lost')) {
          say('');
        }
      }
    } finally {
      s.sending = false;
    }
  }

  function send(kind, payload) {
    s.counter += 1;
    s.outbox.push({ client_id: `${s.prefix}-${s.counter}`, kind, payload });
    keep();
    flush();
  }

  function sendMessage() {
    const text = input.value.trim();
    if (!text) return;
    const why = game.canSend ? game.canSend() : '';
    if (why) { say(why, 'error'); return; }
    const payload = game.message ? game.message(text) : { text };
    if (typeof payload === 'string') { say(payload, 'error'); return; }
    say('');
    input.value = '';
    send('message', payload);
  }

  sendButton.onclick = sendMessage;
  input.addEventListener('keydown', (event) => { if (event.key === 'Enter') { event.preventDefault(); sendMessage(); } });
  finish.onclick = async () => {
    if (!finish.classList.contains('lv-confirm')) {  // a second click finishes: ending is for both players
      finish.classList.add('lv-confirm');
      finish.textContent = 'Click again to end the game for both of you';
      setTimeout(() => { finish.classList.remove('lv-confirm'); finish.textContent = 'Finish the game'; }, 5000);
      return;
    }
    try {
      const response = await fetch(`${base}/finish`, { method: 'POST', credentials: 'same-origin', headers, body: '{}' });
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) say(answer.error || `Not finished (${response.status}).`, 'error');
    } catch (error) {
      say('Not finished: the connection to the server was lost; press Finish again.', 'lost');
    }
  };

  const live = {
    role: data.role, roles: data.roles || [], setup: data.setup || {}, draw: data.draw || {}, send,
    say, changed: refreshCompose, el, fromThisTab: (event) => String(event.client_id || '').startsWith(`${s.prefix}-`),
  };
  const game = createLiveGame(area, live);
  s.stop = () => { s.stopped = true; };
  s.root = root;
  // the solo game's keys (CoDraw's Flip, Delete, arrows; Minecraft's colours), never while typing a message
  s.onKey = (event) => {
    const t = event.target;
    if (!game.key || (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable))) return;
    game.key(event);
  };
  showStatus();
  poll();
  return s;
}

// The coding panel's span editor (ui/coding/panel.py), an st.components.v2 component: select characters of an
// utterance, then click a span label or press its key. Everything from the corpus or the store arrives as
// data and is set with textContent, never as markup.
export default function(component) {
  const { data, setTriggerValue, parentElement } = component;
  let root = parentElement.querySelector('.dc-root');
  if (!root) { root = document.createElement('div'); root.className = 'dc-root'; parentElement.appendChild(root); }
  root.textContent = '';
  const points = (s) => Array.from(s);  // offsets count code points, as Python does
  const bar = document.createElement('div'); bar.className = 'dc-bar';
  const hint = document.createElement('span'); hint.className = 'dc-hint';
  hint.textContent = data.hint;
  data.labels.filter((l) => l.scope === 'span').forEach((l) => {
    const button = document.createElement('button');
    button.type = 'button'; button.className = 'dc-label'; button.style.borderColor = l.colour;
    button.dataset.label = l.name;
    button.textContent = l.key ? l.name + ' [' + l.key + ']' : l.name;
    button.onmousedown = (e) => e.preventDefault();  // keep the text selection
    button.onclick = () => act(l);
    bar.appendChild(button);
  });
  bar.appendChild(hint);
  data.utterances.forEach((u) => {
    const line = document.createElement('div'); line.className = 'dc-utt';
    const who = document.createElement('span'); who.className = 'dc-who'; who.textContent = u.speaker + ':';
    const body = document.createElement('span'); body.className = 'dc-text'; body.dataset.utterance = String(u.index);
    const chars = points(u.text);
    const marks = new Array(chars.length).fill(null);
    u.spans.forEach((s) => { for (let i = s.start; i < Math.min(s.end, chars.length); i++) marks[i] = s; });
    let i = 0;
    while (i < chars.length) {
      let j = i; while (j < chars.length && marks[j] === marks[i]) j++;
      const seg = document.createElement(marks[i] ? 'mark' : 'span');
      seg.textContent = chars.slice(i, j).join('');
      if (marks[i]) {
        seg.className = 'dc-span'; seg.title = marks[i].title; seg.dataset.label = marks[i].label;
        seg.style.background = marks[i].colour + '44'; seg.style.borderBottom = '3px solid ' + marks[i].colour;
      }
      body.appendChild(seg); i = j;
    }
    line.append(who, body); root.appendChild(line);
  });
  root.appendChild(bar);
  function selected() {
    const sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return null;
    const range = sel.getRangeAt(0);
    const node = range.startContainer.nodeType === 1 ? range.startContainer : range.startContainer.parentElement;
    const body = node && node.closest('.dc-text');
    if (!body || !root.contains(body) || !body.contains(range.endContainer)) return null;
    const before = document.createRange();
    before.selectNodeContents(body); before.setEnd(range.startContainer, range.startOffset);
    const start = points(before.toString()).length;
    const text = range.toString();
    return { utterance: Number(body.dataset.utterance), start: start, end: start + points(text).length, text: text };
  }
  function act(l) {
    if (l.scope === 'span') {
      const s = selected();
      if (!s || s.end <= s.start) { hint.textContent = 'Select characters of one utterance first.'; return; }
      setTriggerValue('action', { kind: 'span', label: l.name, utterance: s.utterance, start: s.start, end: s.end, text: s.text });
      window.getSelection().removeAllRanges();
    } else {
      setTriggerValue('action', { kind: l.scope, label: l.name });
    }
  }
  const onKey = (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
    const t = e.target;
    if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
    const l = data.labels.find((x) => x.key && x.key.toLowerCase() === String(e.key).toLowerCase());
    if (l) { e.preventDefault(); act(l); }
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}

// One browser history entry per click (ui/server/server_hint.py says why): a URL change that follows no click,
// touch or key of the reader replaces the current entry instead of pushing a new one. server.py puts it into
// the page's head; under `streamlit run app.py` the app inserts it (ui/shell/url_state.py), so it may run again in
// one document: the flag keeps history.pushState wrapped once.
(function () {
  if (window.__oneHistoryEntryPerClick) return;
  window.__oneHistoryEntryPerClick = true;
  var push = history.pushState.bind(history), replace = history.replaceState.bind(history);
  var acted = false;
  ["pointerdown", "keydown"].forEach(function (type) {
    window.addEventListener(type, function () { acted = true; }, true);
  });
  history.pushState = function (data, title, url) {
    if (!acted) return replace(data, title, url);
    acted = false;
    return push(data, title, url);
  };
})();

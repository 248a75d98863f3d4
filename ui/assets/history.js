// One browser history entry per click (ui/server_hint.py says why): a URL change that follows no click,
// touch or key of the reader replaces the current entry instead of pushing a new one.
(function () {
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

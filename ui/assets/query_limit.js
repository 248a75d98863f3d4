// Streamlit reads no query at all from a link with more than 1,000 parameters or 512 KiB of query (it drops
// the whole query without a word). Before it reads the link, keep the first parameters that fit and add
// truncated=<kept>,<all>, which the app shows as a warning (ui/shell/url_state.py, warn_if_link_cut).
(function () {
  var MAX_FIELDS = 1000, MAX_LENGTH = 512 * 1024;
  var query = location.search.slice(1);
  if (!query) return;
  var fields = query.split("&");
  if (fields.length <= MAX_FIELDS && query.length <= MAX_LENGTH) return;
  var kept = [], length = 40;  // room for the marker
  for (var i = 0; i < fields.length && kept.length < MAX_FIELDS - 1; i++) {
    if (length + fields[i].length + 1 > MAX_LENGTH) break;
    kept.push(fields[i]);
    length += fields[i].length + 1;
  }
  kept.push("truncated=" + kept.length + "," + fields.length);
  history.replaceState(history.state, "", location.pathname + "?" + kept.join("&") + location.hash);
})();

// Scroll the transcript box (not the page) so that the first current line sits in its middle.
// ui/replay/transcript.py fills in the box's key before the script is sent.
(function () {
  const boxes = document.querySelectorAll('[data-vgd-transcript="%(key)s"]');
  const box = boxes[boxes.length - 1];
  if (!box) return;
  const current = box.querySelector('.vgd-current') || box.lastElementChild;
  if (!current) return;
  const target = current.offsetTop - box.offsetTop - (box.clientHeight - current.offsetHeight) / 2;
  box.scrollTop = Math.max(0, target);
  box.dataset.scrolledTo = current.dataset.turn || '';
})();

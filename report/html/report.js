(function () {
  var reqs = Array.prototype.slice.call(document.querySelectorAll('details.req'));
  var statusBoxes = Array.prototype.slice.call(document.querySelectorAll('input[name=status]'));
  var levelBoxes = Array.prototype.slice.call(document.querySelectorAll('input[name=level]'));
  var search = document.getElementById('q');
  var shown = document.getElementById('shown');
  function checked(boxes) {
    var s = {};
    boxes.forEach(function (b) { if (b.checked) s[b.value] = true; });
    return s;
  }
  function apply() {
    var st = checked(statusBoxes), lv = checked(levelBoxes);
    var q = search.value.trim().toLowerCase();
    var n = 0;
    reqs.forEach(function (d) {
      var ok = !!st[d.getAttribute('data-status')] && !!lv[d.getAttribute('data-level')] && (!q || d.getAttribute('data-text').indexOf(q) >= 0);
      d.hidden = !ok;
      if (ok) n++;
    });
    Array.prototype.forEach.call(document.querySelectorAll('section.group'), function (g) {
      g.hidden = !g.querySelector('details.req:not([hidden])');
    });
    shown.textContent = n + ' of ' + reqs.length + ' shown';
  }
  statusBoxes.concat(levelBoxes).forEach(function (b) { b.addEventListener('change', apply); });
  search.addEventListener('input', apply);
  Array.prototype.forEach.call(document.querySelectorAll('[data-only-status]'), function (el) {
    el.addEventListener('click', function () {
      var want = el.getAttribute('data-only-status');
      statusBoxes.forEach(function (b) { b.checked = b.value === want; });
      levelBoxes.forEach(function (b) { b.checked = true; });
      search.value = '';
      apply();
      document.getElementById('requirements').scrollIntoView();
    });
  });
  document.getElementById('expand').addEventListener('click', function () {
    reqs.forEach(function (d) { if (!d.hidden) d.open = true; });
  });
  document.getElementById('collapse').addEventListener('click', function () {
    reqs.forEach(function (d) { d.open = false; });
  });
  function reveal(id) {
    var d = document.getElementById(id);
    if (!d || d.tagName !== 'DETAILS') return;
    if (d.hidden) {
      statusBoxes.concat(levelBoxes).forEach(function (b) { b.checked = true; });
      search.value = '';
      apply();
    }
    d.open = true;
    d.scrollIntoView();
  }
  Array.prototype.forEach.call(document.querySelectorAll('a.jump'), function (a) {
    a.addEventListener('click', function (e) {
      e.preventDefault();
      var id = a.getAttribute('href').slice(1);
      history.replaceState(null, '', '#' + id);
      reveal(id);
    });
  });
  if (location.hash.indexOf('#req-') === 0) reveal(location.hash.slice(1));
  Array.prototype.forEach.call(document.querySelectorAll('button.copy'), function (btn) {
    btn.addEventListener('click', function () {
      var pre = btn.closest('.curl').querySelector('pre');
      var text = pre.textContent;
      var done = function () { btn.textContent = 'copied'; setTimeout(function () { btn.textContent = 'copy'; }, 1500); };
      var select = function () {
        var range = document.createRange();
        range.selectNodeContents(pre);
        var sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        btn.textContent = 'selected: press Ctrl+C';
      };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, select);
      else select();
    });
  });
  apply();
})();

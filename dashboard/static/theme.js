// hopper dashboard: the colour theme buttons of the top bar, at once.
// Without this file the buttons submit a GET form that sets the same
// cookie and reloads the page (theme.go); with it, a click sets the cookie
// and switches the dark style sheet's media query in place.
(function () {
  'use strict';
  var form = document.getElementById('theme-form');
  var sheet = document.getElementById('dark-css');
  if (!form || !sheet) return;
  var media = { light: 'not all', dark: 'all', system: '(prefers-color-scheme: dark)' };
  // The cookie's path is the dashboard's: the form's action without "theme".
  var path = new URL(form.action, location.href).pathname.replace(/theme$/, '');
  form.addEventListener('click', function (e) {
    var b = e.target.closest('button[name="theme"]');
    if (!b || !media[b.value]) return;
    e.preventDefault();
    var theme = b.value;
    document.cookie = 'hopper_theme=' + theme + '; path=' + path + '; max-age=31536000; samesite=lax' + (location.protocol === 'https:' ? '; secure' : '');
    sheet.media = media[theme];
    if (theme === 'system') document.documentElement.removeAttribute('data-theme');
    else document.documentElement.setAttribute('data-theme', theme);
    Array.prototype.forEach.call(form.querySelectorAll('button[name="theme"]'), function (x) {
      x.setAttribute('aria-pressed', String(x === b));
    });
  });
})();

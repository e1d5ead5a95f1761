// Progressive enhancement for the admin; every form also works without it.
(function () {
  'use strict';

  // API Umbrella's admin addresses (/admin/#/stats/logs?start_at=…, bookmarked or in a runbook) reach
  // Parasol's page, the query kept; also its older form, the query after a "/" (#/stats/logs/tz=…&start_at=…).
  var UMBRELLA_PAGES = [
    [/^stats\/logs\b/, '/admin/analytics/logs'],
    [/^stats\/users\b/, '/admin/analytics/users'],
    [/^stats\/map\b/, '/admin/analytics/locations'],
    [/^stats\/drilldown\b/, '/admin/analytics/drilldown'],
    [/^api_users\/new\b/, '/admin/api_users/new'],
    [/^api_users\b/, '/admin/api_users'],
    [/^apis\/new\b/, '/admin/apis/new'],
    [/^apis\b/, '/admin/apis'],
    [/^config\/publish\b/, '/admin/config/publish'],
    [/^admins\b/, '/admin/admins'],
    [/^api_scopes\b/, '/admin/api_scopes'],
    [/^admin_groups\b/, '/admin/admin_groups'],
  ];
  if (location.pathname.indexOf('/admin') === 0 && location.hash.indexOf('#/') === 0) {
    var route = location.hash.slice(2);
    for (var i = 0; i < UMBRELLA_PAGES.length; i++) {
      var match = UMBRELLA_PAGES[i][0].exec(route);
      if (!match) continue;
      var rest = route.slice(match[0].length);
      var query = rest.charAt(0) === '?' || rest.charAt(0) === '/' ? rest.slice(1) : '';
      location.replace(UMBRELLA_PAGES[i][1] + (query && query.indexOf('=') > 0 ? '?' + query : ''));
      return;
    }
  }

  // Open one menu at a time, and close menus on a click elsewhere.
  document.addEventListener('click', function (event) {
    document.querySelectorAll('details[data-menu][open]').forEach(function (menu) {
      if (!menu.contains(event.target)) menu.removeAttribute('open');
    });
  });

  // Buttons and forms that ask first: data-confirm="Delete this?". A yes goes with the form as
  // confirmed=1, so the server does not ask again (it asks on a page of its own without JavaScript).
  document.addEventListener('submit', function (event) {
    var form = event.target;
    var submitter = event.submitter;
    var message = (submitter && submitter.getAttribute('data-confirm')) || form.getAttribute('data-confirm');
    if (!message) return;
    if (!window.confirm(message)) {
      event.preventDefault();
      return;
    }
    // A form the browser kept (Back) may have its yes from before.
    if (form.querySelector('input[name="confirmed"]')) return;
    var confirmed = document.createElement('input');
    confirmed.type = 'hidden';
    confirmed.name = 'confirmed';
    confirmed.value = '1';
    form.appendChild(confirmed);
  });

  // One rate limit of a list shows in the headers, as a radio button would; the server refuses two.
  document.addEventListener('change', function (event) {
    var box = event.target;
    if (!box.matches || !box.matches('input[type="checkbox"][name$="[response_headers]"]') || !box.checked) return;
    var list = box.closest('.rows');
    if (!list) return;
    list.querySelectorAll('input[type="checkbox"][name$="[response_headers]"]').forEach(function (other) {
      // Only this list's own rows: a sub-setting's limits are a list of their own.
      if (other !== box && other.closest('.rows') === list) other.checked = false;
    });
  });

  // Repeatable rows (servers, URL prefixes, rate limits, sub-settings): add from a <template>, remove in place.
  document.addEventListener('click', function (event) {
    var add = event.target.closest('button[data-add-row]');
    if (add) {
      event.preventDefault();
      addRow(add);
      return;
    }
    var remove = event.target.closest('button[data-remove-row]');
    if (remove) {
      event.preventDefault();
      var row = remove.closest('[data-row]');
      if (row) row.remove();
    }
  });

  function addRow(button) {
    var list = document.getElementById(button.getAttribute('data-add-row'));
    var template = document.getElementById(button.getAttribute('data-template'));
    if (!list || !template) return;
    // Rows are numbered by the server; new ones take a number no row has, so names never collide.
    var index = Date.now().toString(36) + Math.floor(Math.random() * 1000);
    var html = template.innerHTML.split(button.getAttribute('data-placeholder')).join(index);
    list.insertAdjacentHTML('beforeend', html);
    var field = list.lastElementChild && list.lastElementChild.querySelector('input, select, textarea');
    if (field) field.focus();
    // A new sub-setting brings its own Rate Limit select and rows.
    if (list.lastElementChild) showRateLimitsIn(list.lastElementChild);
  }

  // Rate limit rows show only while their Rate Limit select says "Custom rate limits", as in API Umbrella's
  // form; hidden, they are disabled too, so a page never sends limits the operator cannot see. (Without the
  // script they always show, and the server refuses rows added under another mode.)
  function showRateLimits(rows) {
    var select = rows.form && rows.form.elements.namedItem(rows.getAttribute('data-rate-limits-for'));
    if (!select || select.tagName !== 'SELECT') return;
    var custom = select.value === 'custom';
    rows.hidden = !custom;
    rows.disabled = !custom;
  }

  function showRateLimitsIn(root) {
    root.querySelectorAll('fieldset[data-rate-limits-for]').forEach(showRateLimits);
  }

  document.addEventListener('change', function (event) {
    if (event.target.matches && event.target.matches('select')) showRateLimitsIn(document);
  });
  // Also when the browser restores a page (Back) with the choices it had.
  window.addEventListener('pageshow', function () { showRateLimitsIn(document); });
  showRateLimitsIn(document);

  // Publish page: Check all / Uncheck all, and Publish only when something is checked.
  var publishForm = document.querySelector('form[data-publish-form]');
  if (publishForm) {
    var boxes = publishForm.querySelectorAll('input[type="checkbox"][data-publish-box]');
    var publishButton = publishForm.querySelector('button[data-publish-button]');
    var selectLinks = document.querySelectorAll('a[data-select]');
    var sync = function () {
      var any = Array.prototype.some.call(boxes, function (box) { return box.checked; });
      var all = Array.prototype.every.call(boxes, function (box) { return box.checked; });
      if (publishButton) publishButton.disabled = !any;
      // One link at a time, as in API Umbrella: Uncheck all once everything is checked, else Check all.
      selectLinks.forEach(function (link) { link.hidden = (link.getAttribute('data-select') === 'all') === all; });
    };
    selectLinks.forEach(function (link) {
      link.addEventListener('click', function (event) {
        event.preventDefault();
        var checked = link.getAttribute('data-select') === 'all';
        boxes.forEach(function (box) { box.checked = checked; });
        sync();
      });
    });
    publishForm.addEventListener('change', sync);
    sync();
  }

  // Record forms (data-unsaved-warning) ask before the page is left with changes not saved, as API
  // Umbrella's admin does. A form shown again with its errors holds unsaved changes from the start.
  var unsaved = false;
  document.querySelectorAll('form[data-unsaved-warning]').forEach(function (form) {
    if (form.querySelector('[aria-invalid="true"]')) unsaved = true;
    var changed = function () { unsaved = true; };
    form.addEventListener('input', changed);
    form.addEventListener('change', changed);
  });
  // On the document after the data-confirm check above, so a submit it cancelled keeps the changes unsaved.
  document.addEventListener('submit', function (event) {
    if (event.defaultPrevented || !event.target.matches('form[data-unsaved-warning]')) return;
    unsaved = false;
    keepSent(event.target);
  });

  // A record form sent after the session ended is not saved: the server sends the browser to sign in
  // (?expired=1). What was typed is kept in this tab (never a password or the CSRF token), and the form's
  // page offers it back once it is opened again. Any other answer to the form drops the copy.
  var SENT = 'parasol.sent';
  var UNSAVED = 'parasol.unsaved';
  /** What is kept of a form, and given back: never a password or the CSRF token. */
  function isKept(field) {
    return Boolean(field.name) && field.name !== '_csrf' && field.type !== 'password' && field.type !== 'file';
  }
  function keepSent(form) {
    var fields = [];
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!isKept(field) || field.disabled) return;
      if ((field.type === 'checkbox' || field.type === 'radio') && !field.checked) return;
      fields.push([field.name, field.value]);
    });
    try {
      sessionStorage.setItem(SENT, JSON.stringify({ page: location.pathname + location.search, fields: fields }));
    } catch (error) {
      // Storage full or refused: the form goes as it would without this.
    }
  }
  function takeStored(key) {
    try {
      var stored = sessionStorage.getItem(key);
      sessionStorage.removeItem(key);
      return stored === null ? null : JSON.parse(stored);
    } catch (error) {
      return null;
    }
  }
  var sent = takeStored(SENT);
  if (sent !== null && location.pathname === '/admin/login' && new URLSearchParams(location.search).has('expired')) {
    sessionStorage.setItem(UNSAVED, JSON.stringify(sent));
  }
  var kept = takeStored(UNSAVED);
  var keptForm = kept === null ? null : document.querySelector('form[data-unsaved-warning]');
  if (keptForm !== null && kept.page === location.pathname + location.search) offerBack(keptForm, kept.fields);
  else if (kept !== null) sessionStorage.setItem(UNSAVED, JSON.stringify(kept));

  function offerBack(form, fields) {
    var notice = document.createElement('div');
    notice.className = 'flash flash-info';
    notice.setAttribute('role', 'status');
    notice.textContent = 'Your session ended before this form was saved. ';
    var restore = document.createElement('button');
    restore.type = 'button';
    restore.textContent = 'Restore what you typed';
    var discard = document.createElement('button');
    discard.type = 'button';
    discard.className = 'secondary';
    discard.textContent = 'Discard';
    notice.append(restore, ' ', discard);
    form.parentNode.insertBefore(notice, form);
    restore.addEventListener('click', function () {
      fillIn(form, fields);
      unsaved = true;
      notice.remove();
    });
    discard.addEventListener('click', function () { notice.remove(); });
  }
  function fillIn(form, fields) {
    var checked = {};
    fields.forEach(function (pair) { (checked[pair[0]] = checked[pair[0]] || []).push(pair[1]); });
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!isKept(field)) return;
      var values = checked[field.name];
      if (field.type === 'checkbox' || field.type === 'radio') field.checked = values !== undefined && values.indexOf(field.value) >= 0;
      else if (values !== undefined) field.value = values.shift();
    });
    showRateLimitsIn(form);
  }
  window.addEventListener('beforeunload', function (event) {
    if (!unsaved) return;
    event.preventDefault();
    // Older browsers show the prompt only for a returnValue.
    event.returnValue = '';
  });

  // Copy buttons beside keys and tokens that are shown once.
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var field = document.getElementById(button.getAttribute('data-copy'));
      if (!field) return;
      field.select();
      var done = function () { button.textContent = 'Copied'; };
      if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand('copy'); done(); });
      else { document.execCommand('copy'); done(); }
    });
  });
})();

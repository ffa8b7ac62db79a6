/*
 * Small, unobtrusive enhancements. Every page works without this file and
 * without htmx. Loaded with `defer` and a CSP nonce: no eval, no inline
 * handlers, no innerHTML; text is only ever set through textContent.
 *
 *   1. Busy buttons (forms and htmx requests): no double submits
 *   2. Countdowns: [data-countdown-expires]
 *   3. Kiosk idle reset: body[data-idle-reset]
 *   4. Seat map live count and limit: .seatmap[data-max]
 *   4b. Seat map zoom and pinch: .seatmap [data-seatmap-zoom]
 *   4c. Seat map keys: arrows move between seats, Space or Enter ticks one
 *   5. Print buttons: [data-print]
 *   5c. Kiosk collect keypads: .kiosk-keypad[data-for] [data-key]
 *   6. Counter keys: [data-shortcut], [data-shortcut-focus], [data-required-with]
 *   6b. Counter cash, change due: [data-cash-change]
 *   7. Ticket counts with − and +: [data-stepper]
 */
(function () {
  'use strict';

  var doc = document;

  /* Run fn for every element matching selector in root (root included). */
  function each(root, selector, fn) {
    if (!root || !root.querySelectorAll) return;
    if (root.matches && root.matches(selector)) fn(root);
    Array.prototype.forEach.call(root.querySelectorAll(selector), fn);
  }

  /* ------------------------------------------------------------------
   * 1. Busy buttons
   * ------------------------------------------------------------------ */
  var SUBMIT_SELECTOR = 'button[type=submit], button:not([type]), input[type=submit]';

  function setBusy(el, busy) {
    if (!el) return;
    if (busy) {
      el.setAttribute('aria-busy', 'true');
      el.classList.add('is-busy');
      if ('disabled' in el) el.disabled = true;
      else el.setAttribute('aria-disabled', 'true');
    } else {
      el.removeAttribute('aria-busy');
      el.classList.remove('is-busy');
      if ('disabled' in el) el.disabled = false;
      else el.removeAttribute('aria-disabled');
    }
  }

  function clearAllBusy() {
    each(doc, '[aria-busy="true"].is-busy', function (el) { setBusy(el, false); });
  }

  doc.addEventListener('submit', function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || form.hasAttribute('data-no-busy')) return;
    var submitter = event.submitter || form.querySelector(SUBMIT_SELECTOR);
    // Wait until the submit event is over: the submitter's name/value is
    // already in the form data set, and we know whether anyone (htmx, a
    // validation script) cancelled the native submission.
    setTimeout(function () {
      if (event.defaultPrevented || !submitter || submitter.hasAttribute('data-no-busy')) return;
      setBusy(submitter, true);
    }, 0);
  });

  // Back/forward cache restores the page as it was: buttons must work again.
  window.addEventListener('pageshow', clearAllBusy);

  // htmx requests: mark the element that started the request (for a form,
  // the button that submitted it). Form values are collected before
  // htmx:beforeRequest, so disabling here does not drop the button's value.
  var busyByRequest = typeof WeakMap === 'function' ? new WeakMap() : null;

  function busyTargetFor(detail) {
    var elt = detail && detail.elt;
    if (!elt || !elt.matches) return null;
    if (elt.closest('[data-no-busy]')) return null;
    if (elt instanceof HTMLFormElement) {
      var trig = detail.requestConfig && detail.requestConfig.triggeringEvent;
      var sub = trig && trig.submitter;
      if (sub && elt.contains(sub)) return sub;
      if (sub && sub.form === elt) return sub;
      return elt.querySelector(SUBMIT_SELECTOR);
    }
    // Only controls get a busy state; a polling <div> does not.
    if (elt.matches('button, input[type=submit], input[type=button], a.button')) return elt;
    return null;
  }

  doc.addEventListener('htmx:beforeRequest', function (event) {
    var target = busyTargetFor(event.detail);
    if (!target || !busyByRequest || !event.detail.xhr) return;
    busyByRequest.set(event.detail.xhr, target);
    setBusy(target, true);
  });

  doc.addEventListener('htmx:afterRequest', function (event) {
    if (!busyByRequest || !event.detail || !event.detail.xhr) return;
    var target = busyByRequest.get(event.detail.xhr);
    if (target) {
      busyByRequest.delete(event.detail.xhr);
      setBusy(target, false);
    }
  });

  /* ------------------------------------------------------------------
   * 2. Countdowns
   * <div class="countdown" data-countdown-expires="ISO"
   *      [data-countdown-now="ISO server time"] [data-countdown-warn-seconds="120"]
   *      [data-countdown-expired-url="/…"]>
   *   [<span class="countdown-for" hidden>for </span>] <span class="countdown-time" aria-hidden="true">m:ss</span>
   *   [<span class="countdown-until">until <time>…</time></span>: shown without JavaScript]
   *   <span class="countdown-sr visually-hidden" aria-live="polite"></span>
   *   <p data-countdown-warning role="alert" hidden>…</p>
   *   <p data-countdown-expired role="alert" hidden>…</p>
   * </div>
   * The visible mm:ss changes every second and is hidden from screen
   * readers; .countdown-sr speaks only on each full minute and at the warning.
   * Its words come from the server, in the page's language, as templates with {n}
   * on the countdown (components.CountdownWords): data-countdown-left(-one) "{n}
   * minutes left", data-countdown-less(-one) "Less than {n} minutes left",
   * data-countdown-time-up. A countdown without them speaks English.
   * ------------------------------------------------------------------ */
  var started = typeof WeakSet === 'function' ? new WeakSet() : null;

  function pad2(n) { return (n < 10 ? '0' : '') + n; }

  function formatClock(total) {
    var h = Math.floor(total / 3600);
    var m = Math.floor((total % 3600) / 60);
    var s = total % 60;
    return (h > 0 ? h + ':' + pad2(m) : String(m)) + ':' + pad2(s);
  }

  var COUNTDOWN_WORDS = {
    'left': ['{n} minutes left', '{n} minute left'],
    'less': ['Less than {n} minutes left', 'Less than {n} minute left'],
    'time-up': ['Time is up', 'Time is up']
  };

  /* The countdown's words for n minutes: the server's template, else English. */
  function countdownText(el, key, n) {
    var attr = 'data-countdown-' + key;
    var t = (n === 1 && el.getAttribute(attr + '-one')) || el.getAttribute(attr) ||
      COUNTDOWN_WORDS[key][n === 1 ? 1 : 0];
    return t.replace('{n}', String(n));
  }

  function sameOrigin(url) {
    try { return new URL(url, location.href).origin === location.origin; } catch (e) { return false; }
  }

  function startCountdown(el) {
    if (started) {
      if (started.has(el)) return;
      started.add(el);
    }
    var timeEl = el.querySelector('.countdown-time');
    if (!timeEl) return;
    timeEl.setAttribute('aria-hidden', 'true');
    // "Seats held for 9:41": the live clock replaces "until 19:52", which is what is shown
    // (and what screen readers read) without JavaScript.
    var forEl = el.querySelector('.countdown-for');
    if (forEl) {
      forEl.hidden = false;
      el.classList.add('countdown-live');
    }

    var sr = el.querySelector('.countdown-sr');
    if (!sr) {
      sr = doc.createElement('span');
      sr.className = 'countdown-sr visually-hidden';
      el.appendChild(sr);
    }
    sr.setAttribute('aria-live', 'polite');

    // Correct for a wrong device clock when the server says what time it is.
    var skew = 0;
    var serverNow = Date.parse(el.getAttribute('data-countdown-now') || '');
    if (!isNaN(serverNow)) skew = serverNow - Date.now();

    var warned = false;
    var lastMinute = null;
    var done = false;

    function tick() {
      if (done) return;
      if (!el.isConnected) { done = true; return; } // swapped out by htmx
      var expires = Date.parse(el.getAttribute('data-countdown-expires') || '');
      if (isNaN(expires)) return;
      var warnAt = parseInt(el.getAttribute('data-countdown-warn-seconds') || '120', 10);
      if (isNaN(warnAt)) warnAt = 120;

      var msLeft = expires - (Date.now() + skew);
      var left = Math.max(0, Math.ceil(msLeft / 1000));
      timeEl.textContent = formatClock(left);

      var warning = el.querySelector('[data-countdown-warning]');
      if (left > 0 && left <= warnAt) {
        if (!warned) {
          warned = true;
          el.classList.add('countdown-warning');
          if (warning) warning.hidden = false;
          var m = Math.max(1, Math.ceil(left / 60));
          sr.textContent = countdownText(el, 'less', m);
          lastMinute = m;
        }
      } else if (left > warnAt && warned) {
        // More time was given (attribute updated in place): back to calm.
        warned = false;
        el.classList.remove('countdown-warning');
        if (warning) warning.hidden = true;
      }

      // Announce once per full minute (never every second). ceil(left/60)
      // drops exactly when a whole minute is reached, even if a tick is late.
      var minute = Math.ceil(left / 60);
      if (lastMinute === null || minute > lastMinute) {
        lastMinute = minute; // first run (the server wrote the text) or more time given
      } else if (left > 0 && minute < lastMinute) {
        lastMinute = minute;
        sr.textContent = countdownText(el, 'left', minute);
      }

      if (left === 0) {
        done = true;
        el.classList.remove('countdown-warning');
        el.classList.add('countdown-expired');
        if (warning) warning.hidden = true;
        var expired = el.querySelector('[data-countdown-expired]');
        if (expired) expired.hidden = false;
        else sr.textContent = countdownText(el, 'time-up', 0);
        var url = el.getAttribute('data-countdown-expired-url');
        if (url && sameOrigin(url)) {
          // A moment for the expired message to be seen and heard.
          setTimeout(function () { location.assign(url); }, 1500);
        }
        return;
      }
      // Next tick just after the next whole second of remaining time.
      var wait = msLeft % 1000;
      setTimeout(tick, (wait <= 0 ? 1000 : wait) + 20);
    }
    tick();
  }

  /* ------------------------------------------------------------------
   * 3. Kiosk idle reset
   * <body data-idle-reset="60" data-idle-warn="20" data-idle-url="/visit/reset"
   *       hx-headers='{"X-CSRF-Token":"…"}'>
   * After data-idle-reset seconds without a touch, #idle-warning counts down
   * data-idle-warn seconds (never less than 20) in #idle-seconds. Continue, or
   * any touch, keeps the visit; otherwise the visit ends with a POST to
   * data-idle-url (the server cancels the open order, releasing its seats).
   * While an element carries data-idle-paused (a payment in progress) the
   * timer does not run, until data-idle-paused-for seconds after the page
   * loaded (the payment's own deadline): then a guest who walked away gets
   * the warning at once. Without JavaScript a meta refresh does the same.
   * ------------------------------------------------------------------ */
  function setupIdleReset() {
    var body = doc.body;
    var seconds = parseInt(body.getAttribute('data-idle-reset') || '', 10);
    var url = body.getAttribute('data-idle-url');
    if (!(seconds > 0) || !url) return;

    var warnFor = Math.max(20, parseInt(body.getAttribute('data-idle-warn') || '', 10) || 20);
    var warningEl = doc.getElementById('idle-warning');
    var continueBtn = doc.getElementById('idle-continue');
    var secondsEl = doc.getElementById('idle-seconds');
    var idleTimer = null;
    var tickTimer = null;
    var deadline = 0;
    var lastReset = 0;
    var ending = false;

    var loadedAt = Date.now();
    var pausedFor = parseInt(body.getAttribute('data-idle-paused-for') || '', 10);

    // pauseLeft is how long the page still pauses the reset: 0 when it does not, Infinity
    // when the pause has no end (the idle warning page itself).
    function pauseLeft() {
      if (!doc.querySelector('[data-idle-paused]')) return 0;
      if (!(pausedFor > 0)) return Infinity;
      return Math.max(0, loadedAt + pausedFor * 1000 - Date.now());
    }

    function setPageInert(on) {
      Array.prototype.forEach.call(body.children, function (child) {
        if (child === warningEl || child.tagName === 'SCRIPT') return;
        if (on) child.setAttribute('inert', '');
        else child.removeAttribute('inert');
      });
    }

    function warningShown() { return !!warningEl && !warningEl.hidden; }

    function tick() {
      clearTimeout(tickTimer);
      var left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      if (secondsEl && secondsEl.textContent !== String(left)) secondsEl.textContent = String(left);
      if (left === 0) { endVisit(); return; }
      tickTimer = setTimeout(tick, 250);
    }

    function showWarning() {
      if (ending) return;
      var left = pauseLeft();
      if (left === Infinity) { reset(); return; } // no end: look again later
      if (left > 0) {
        // A payment is running: look again when its pause ends (or after the usual time).
        clearTimeout(idleTimer);
        idleTimer = setTimeout(showWarning, Math.min(left + 50, seconds * 1000));
        return;
      }
      deadline = Date.now() + warnFor * 1000;
      if (warningEl) {
        warningEl.hidden = false;
        body.classList.add('idle-warned');
        setPageInert(true);
        if (continueBtn) continueBtn.focus();
      }
      tick();
    }

    function hideWarning() {
      clearTimeout(tickTimer);
      if (!warningEl || warningEl.hidden) return;
      warningEl.hidden = true;
      body.classList.remove('idle-warned');
      setPageInert(false);
    }

    function csrfToken() {
      try {
        var headers = JSON.parse(body.getAttribute('hx-headers') || '{}');
        return headers['X-CSRF-Token'] || '';
      } catch (e) { return ''; }
    }

    function endVisit() {
      if (ending) return;
      ending = true;
      clearTimeout(idleTimer);
      clearTimeout(tickTimer);
      var form = doc.createElement('form');
      form.method = 'post';
      form.action = url;
      form.hidden = true;
      form.setAttribute('data-no-busy', '');
      var input = doc.createElement('input');
      input.type = 'hidden';
      input.name = '_csrf';
      input.value = csrfToken();
      form.appendChild(input);
      body.appendChild(form);
      form.submit();
    }

    function reset() {
      if (ending) return;
      lastReset = Date.now();
      clearTimeout(idleTimer);
      idleTimer = setTimeout(showWarning, seconds * 1000);
    }

    function onActivity(event) {
      if (warningShown()) {
        // Any touch while warned counts as "continue"; the button is the obvious way.
        if (event.type === 'pointermove') return;
        hideWarning();
        reset();
        return;
      }
      // Cheap: at most one timer reset every half second.
      if (Date.now() - lastReset > 500) reset();
    }

    ['pointerdown', 'pointermove', 'keydown', 'touchstart', 'wheel', 'input'].forEach(function (type) {
      doc.addEventListener(type, onActivity, { capture: true, passive: true });
    });
    if (continueBtn) {
      continueBtn.addEventListener('click', function () { hideWarning(); reset(); });
    }
    window.addEventListener('pageshow', function (event) {
      if (event.persisted) { ending = false; hideWarning(); reset(); }
    });
    reset();
  }

  /* ------------------------------------------------------------------
   * 4. Seat map live count and limit
   * <div class="seatmap" data-max="3" data-seat-count-template="{n} of {max} seats chosen"
   *      [data-seat-count-template-one="{n} of {max} seat chosen"]
   *      [data-max-from="#swap-tickets" data-seat-count-none="{n} seats chosen …"
   *       [data-seat-count-none-one="{n} seat chosen …"]]
   *      data-seat-limit-over="… {n} … {max} … {extra} …" data-seat-limit-over-one="…"
   *      data-seat-moved="… {from} …">
   *   <p class="seatmap-count" data-seat-count aria-live="polite">…</p>
   *   <p class="hint" data-seat-limit hidden>…</p> … seats …
   * Counts the chosen seats (ticked seat checkboxes; the list view shows the same ones). With
   * data-max-from the maximum is the sum of data-seats of the ticked boxes
   * in that element (the tickets that move), and follows them. With enough
   * seats chosen, a tap on another free seat moves the seat chosen longest ago there
   * (data-seat-moved says so in the tap's answer); only more seats than tickets is a warning
   * (data-seat-limit). The server still checks the count. Every text comes from the
   * server, in the page's language: the templates above (the "-one" ones for a maximum, or
   * a count, of one).
   * ------------------------------------------------------------------ */
  function seatMax(map) {
    var from = map.getAttribute('data-max-from');
    var src = from ? doc.querySelector(from) : null;
    if (!src) return parseInt(map.getAttribute('data-max') || '', 10);
    var sum = 0;
    each(src, 'input[data-seats]', function (box) {
      if (box.checked) sum += parseInt(box.getAttribute('data-seats') || '1', 10) || 1;
    });
    return sum;
  }

  /* The map's template named by attr, its "-one" form when one is 1 and the map has it. */
  function seatTemplate(map, attr, one) {
    return (one && map.getAttribute(attr + '-one')) || map.getAttribute(attr) || '';
  }

  function fill(template, n, max) {
    return template.replace('{n}', String(n)).replace('{max}', String(max))
      .replace('{extra}', String(n - max));
  }

  /* The amber line for more seats than tickets. */
  function limitText(map, n, max) {
    return fill(seatTemplate(map, 'data-seat-limit-over', max === 1), n, max);
  }

  /* The seats in the order they were ticked, oldest first (ticked on arrival: page order). */
  var chosenOrder = new WeakMap();

  function orderOf(map) {
    var order = chosenOrder.get(map);
    if (!order) {
      order = Array.prototype.slice.call(map.querySelectorAll('.seat input:checked'));
      chosenOrder.set(map, order);
    }
    return order;
  }

  /* A seat's look follows its box through classes (CSS keeps :has() off the map: see the
   * seat rules there): is-checked, and is-unchecked for a seat rendered chosen or yours
   * whose box was unticked. Classes are only written when they change. */
  function markSeat(box) {
    var seat = box.parentNode;
    if (!seat || !seat.classList || !seat.classList.contains('seat')) return;
    var cl = seat.classList;
    var on = box.checked;
    var off = !on && (cl.contains('seat-selected') || cl.contains('seat-yours'));
    if (cl.contains('is-checked') !== on) cl.toggle('is-checked', on);
    if (cl.contains('is-unchecked') !== off) cl.toggle('is-unchecked', off);
  }

  /* One box changed: at capacity a newly ticked seat takes the place of the seat ticked
   * longest ago (the seats the service suggested first), so tapping as many new seats as
   * tickets always ends with exactly those seats. Returns the box unticked for it, if any. */
  function seatChanged(map, box) {
    var order = orderOf(map).filter(function (b) { return b !== box && b.checked; });
    var moved = null;
    if (box.checked) {
      var max = seatMax(map);
      if (max > 0 && order.length >= max && order.length > 0) {
        moved = order.shift();
        moved.checked = false;
        markSeat(moved);
      }
      order.push(box);
    }
    chosenOrder.set(map, order);
    markSeat(box);
    map.__moved = moved;
    return moved;
  }

  /* The parts of a map a tap writes to, found once (a tap never searches the 412 seats of a
   * large map): its counts (and the copies in the form's sticky bar), its warnings and the
   * tap's answer. */
  var mapParts = new WeakMap();

  function partsOf(map) {
    var parts = mapParts.get(map);
    if (!parts) {
      var counts = Array.prototype.slice.call(map.querySelectorAll('[data-seat-count]'));
      if (map.id) {
        // The copy in the form's sticky action bar (not a live region: the map's count is).
        counts = counts.concat(Array.prototype.slice.call(doc.querySelectorAll('[data-seat-count-for="' + map.id + '"]')));
      }
      parts = {
        counts: counts,
        limits: Array.prototype.slice.call(map.querySelectorAll('[data-seat-limit]')),
        tapped: map.querySelector('[data-seat-tapped]')
      };
      mapParts.set(map, parts);
    }
    return parts;
  }

  /* Counts and texts; with all, every seat's look is synced with its box too (on start and
   * after back/forward, when the browser restored the boxes). Otherwise the count is that of
   * the seats in the order kept by seatChanged, so a tap touches only the seats it changes.
   * Nothing above the map changes height: the status area keeps its size (CSS). */
  function updateSeatmap(map, all) {
    var max = seatMax(map);
    var limited = max > 0;
    if (!limited && !map.hasAttribute('data-max-from')) return;
    if (all === true) {
      each(map, '.seat input[type=checkbox]', markSeat);
      chosenOrder.delete(map);
    }
    var n = orderOf(map).filter(function (b) { return b.checked; }).length;
    var text;
    if (limited) {
      text = fill(seatTemplate(map, 'data-seat-count-template', max === 1), n, max);
    } else {
      text = fill(seatTemplate(map, 'data-seat-count-none', n === 1), n, 0);
    }
    var parts = partsOf(map);
    parts.counts.forEach(function (c) {
      if (c.textContent !== text) c.textContent = text;
    });
    // Only too many seats is a warning (tickets given back in a change, or a swap's tickets
    // unticked): with as many seats as tickets another tap moves a seat.
    var over = limited && n > max;
    var hint = over ? limitText(map, n, max) : '';
    parts.limits.forEach(function (h) {
      if (h.hidden !== !over) h.hidden = !over;
      if (h.textContent !== hint && over) h.textContent = hint;
    });
    if (map.classList.contains('seatmap-over') !== over) map.classList.toggle('seatmap-over', over);
  }

  doc.addEventListener('change', function (event) {
    var t = event.target;
    if (!t || !t.closest) return;
    var map = t.closest('.seatmap[data-max]');
    if (map && t.closest('.seat')) {
      seatChanged(map, t);
      updateSeatmap(map);
    } else if (map) {
      updateSeatmap(map);
    }
    if (t.hasAttribute && t.hasAttribute('data-seats')) {
      // A ticket that moves was ticked or unticked: the maps counting those follow.
      each(doc, '.seatmap[data-max-from]', function (m) {
        var src = doc.querySelector(m.getAttribute('data-max-from'));
        if (src && src.contains(t)) updateSeatmap(m);
      });
    }
  });
  // Restored form state (back/forward) needs a recount.
  window.addEventListener('pageshow', function () {
    each(doc, '.seatmap[data-max]', function (m) { updateSeatmap(m, true); });
  });

  /* ------------------------------------------------------------------
   * 4c. Seat map keys. The map is one stop for Tab (the seat last ticked, or the first free
   *     one); the arrow keys move between free seats (up and down to the nearest seat of the
   *     next row), Space ticks or unticks (the checkbox's own key) and so does Enter, which
   *     never submits the form from a seat. Without this script every seat is a Tab stop.
   * ------------------------------------------------------------------ */
  function seatBoxes(row) {
    return Array.prototype.filter.call(row.querySelectorAll('input[type=checkbox]'), function (b) { return !b.disabled; });
  }

  function setupSeatKeys(map) {
    if (map.hasAttribute('data-seat-keys')) return;
    var boxes = Array.prototype.filter.call(map.querySelectorAll('.seat-row input[type=checkbox]'), function (b) { return !b.disabled; });
    if (!boxes.length) return;
    map.setAttribute('data-seat-keys', '');
    var start = boxes.filter(function (b) { return b.checked; })[0] || boxes[0];
    boxes.forEach(function (b) { b.tabIndex = b === start ? 0 : -1; });
  }

  function moveSeatFocus(from, to) {
    if (!to || to === from) return;
    from.tabIndex = -1;
    to.tabIndex = 0;
    to.focus();
    if (to.scrollIntoView) to.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  function nearestIn(row, x) {
    var best = null, dist = Infinity;
    seatBoxes(row).forEach(function (b) {
      var r = b.closest('.seat').getBoundingClientRect();
      var d = Math.abs(r.left + r.width / 2 - x);
      if (d < dist) { best = b; dist = d; }
    });
    return best;
  }

  /* A seat focused by keyboard shows the map's keyboard help (hidden on touch screens). */
  doc.addEventListener('focusin', function (event) {
    var box = event.target;
    if (!box || !box.matches || !box.matches('.seatmap .seat input')) return;
    var map = box.closest('.seatmap');
    var keyboard = false;
    try { keyboard = box.matches(':focus-visible'); } catch (e) { keyboard = false; }
    if (map && keyboard && !map.classList.contains('seatmap-keyboard')) map.classList.add('seatmap-keyboard');
  });

  /* A field being typed into is never under the sticky action bar: a tap on its visible half
     focuses it without scrolling, and the bar would cover what is typed. */
  doc.addEventListener('focusin', function (event) {
    var field = event.target;
    if (!field || !field.matches || !field.matches('input:not([type=checkbox]):not([type=radio]), select, textarea')) return;
    var bar = doc.querySelector('.action-bar');
    if (!bar || bar.contains(field)) return;
    var barTop = bar.getBoundingClientRect().top;
    var below = field.getBoundingClientRect().bottom - barTop;
    if (barTop < window.innerHeight && below > -8) window.scrollBy(0, below + 8);
  });

  doc.addEventListener('keydown', function (event) {
    var box = event.target;
    if (!box || !box.matches || !box.matches('.seatmap .seat-row input[type=checkbox]')) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var map = box.closest('.seatmap');
    var key = event.key;
    if (key === 'Enter') {
      event.preventDefault();
      box.click();
      return;
    }
    var row = box.closest('.seat-row');
    if (key === 'ArrowLeft' || key === 'ArrowRight') {
      var inRow = seatBoxes(row);
      var i = inRow.indexOf(box) + (key === 'ArrowLeft' ? -1 : 1);
      event.preventDefault();
      moveSeatFocus(box, inRow[i]);
      return;
    }
    if (key === 'ArrowUp' || key === 'ArrowDown') {
      event.preventDefault();
      var rows = Array.prototype.filter.call(map.querySelectorAll('.seat-row'), function (r) { return seatBoxes(r).length > 0; });
      var at = rows.indexOf(row);
      var rect = box.closest('.seat').getBoundingClientRect();
      var x = rect.left + rect.width / 2;
      var next = rows[at + (key === 'ArrowUp' ? -1 : 1)];
      if (next) moveSeatFocus(box, nearestIn(next, x));
    }
  });

  /* ------------------------------------------------------------------
   * 4b. Seat map zoom: <div class="seatmap-zoom" data-seatmap-zoom hidden>
   *       <button type="button" data-zoom="out|fit|in">…</button></div>
   * Without this script the map fits its width (CSS). Here the buttons and a two-finger
   * pinch set --zoom on the .seatmap (1 = fit), and the scroller pans; the point at the
   * centre of the view (or between the fingers) stays put. "In" steps up so that seats
   * reach at least 24 px (48 px on the kiosk) in one or two presses.
   * ------------------------------------------------------------------ */
  var ZOOM_MAX = 6;

  function seatSize(map) {
    var seat = map.querySelector('.seatmap-scroll .seat');
    return seat ? seat.getBoundingClientRect().width : 0;
  }

  /* change (optional) runs between reading the point under (cx, cy) and putting it back:
   * entering or leaving the overview changes the seats' base size as well as the zoom. */
  function setZoom(map, zoom, cx, cy, change) {
    var scroller = map.querySelector('.seatmap-scroll');
    if (!scroller) return;
    zoom = Math.max(1, Math.min(ZOOM_MAX, zoom));
    var rect = scroller.getBoundingClientRect();
    if (cx === undefined) { cx = rect.width / 2; cy = rect.height / 2; }
    // the map point under (cx, cy), as a share of the map's size
    var fx = (scroller.scrollLeft + cx) / (scroller.scrollWidth || 1);
    var fy = (scroller.scrollTop + cy) / (scroller.scrollHeight || 1);
    if (change) change();
    map.setAttribute('data-zoom', String(zoom));
    if (map.style.getPropertyValue('--zoom') !== String(zoom)) map.style.setProperty('--zoom', String(zoom));
    scroller.scrollLeft = fx * scroller.scrollWidth - cx;
    scroller.scrollTop = fy * scroller.scrollHeight - cy;
    zoomButtons(map, zoom);
  }

  function zoomButtons(map, zoom) {
    var scroller = map.querySelector('.seatmap-scroll');
    // "Fit" shows the whole map: nothing to do when it already fits (or is the overview).
    var fits = map.hasAttribute('data-pick-area') ||
      (zoom <= 1 && (isKiosk() || scroller.scrollWidth <= scroller.clientWidth + 1));
    each(map, '[data-zoom="fit"]', function (b) { b.disabled = fits; });
    each(map, '[data-zoom="out"]', function (b) { b.disabled = zoom <= 1; });
    each(map, '[data-zoom="in"]', function (b) { b.disabled = zoom >= ZOOM_MAX; });
  }

  function isKiosk() { return doc.body.classList.contains('mode-kiosk'); }

  /* On the kiosk a large plan is picked in two steps: the whole auditorium at fit, where a
   * tap chooses the part to sit in (the seats do not take taps yet: at fit they are smaller
   * than a finger), then that part with seats of at least 48 px. The map's
   * [data-area-hint] (shown here) says so; "Fit" goes back to the overview. A keyboard
   * still reaches every seat at any zoom. */
  var KIOSK_SEAT = 48;
  var SEAT_MIN = 24;

  /* Customers see seats of at least 24 px (CSS): the map opens on the party's
   * seats, and "Fit" is the same overview as the kiosk's, where a tap picks the place. */
  function pickAreaFirst(map, fit) {
    var target = isKiosk() ? KIOSK_SEAT : SEAT_MIN;
    if (!isKiosk() && !fit) return;
    if (!isKiosk()) map.setAttribute('data-pick-area', ''); // drops the 24 px floor
    if ((seatSize(map) || target) >= target) { map.removeAttribute('data-pick-area'); return; }
    map.setAttribute('data-pick-area', '');
    each(map, '[data-area-hint]', function (h) { h.hidden = false; });
  }

  function leavePickArea(map) {
    map.removeAttribute('data-pick-area');
    each(map, '[data-area-hint]', function (h) { h.hidden = true; });
  }

  /* The map opens on the party's seats: window.cinemaOpenOnParty, written by the seat
   * form's action bar (components.SeatActions) so that it runs before the first paint on
   * a customer's screen; here it runs for the kiosk, after its overview is set up. */
  function openOnParty(map) {
    if (map.hasAttribute('data-opened') || typeof window.cinemaOpenOnParty !== 'function') return;
    window.cinemaOpenOnParty(map);
  }

  function zoomStep(map, dir) {
    var zoom = parseFloat(map.getAttribute('data-zoom') || '1') || 1;
    if (dir === 'fit') return setZoom(map, 1);
    var size = seatSize(map) || 24;
    var target = isKiosk() ? KIOSK_SEAT : SEAT_MIN;
    if (dir === 'in') {
      // first step: straight to a comfortable target size when the fit is smaller
      var next = size < target ? zoom * Math.max(1.5, (target + 2) / size) : zoom * 1.5;
      return setZoom(map, next);
    }
    return setZoom(map, zoom / 1.5);
  }

  function setupZoom(map) {
    var bar = map.querySelector('[data-seatmap-zoom]');
    var scroller = map.querySelector('.seatmap-scroll');
    if (!bar || !scroller || bar.getAttribute('data-ready')) return;
    bar.setAttribute('data-ready', '1');
    bar.hidden = false;
    var typedAttr = false;
    try { typedAttr = !!(window.CSS && CSS.supports('x: attr(x type(*))')); } catch (e) { typedAttr = false; }
    if (!typedAttr && map.style.setProperty && !map.style.getPropertyValue('--cols')) {
      // browsers without typed attr(): the column count from data-cols
      map.style.setProperty('--cols', map.getAttribute('data-cols') || '24');
    }
    // The map opens at zoom 1, the stylesheet's own: nothing to write (a write of --zoom
    // would restyle every seat before the first paint).
    map.setAttribute('data-zoom', '1');
    pickAreaFirst(map, false);
    openOnParty(map);
    zoomButtons(map, 1);
    bar.addEventListener('click', function (event) {
      var b = event.target.closest && event.target.closest('[data-zoom]');
      if (!b || b.disabled) return;
      var dir = b.getAttribute('data-zoom');
      if (dir === 'fit') {
        setZoom(map, 1, undefined, undefined, function () {
          // the whole map at zoom 1 first, so the overview measures the fitted seats
          map.setAttribute('data-zoom', '1');
          map.style.setProperty('--zoom', '1');
          pickAreaFirst(map, true);
        });
      } else if (map.hasAttribute('data-pick-area') && !isKiosk()) {
        // out of the overview: back to seats of at least 24 px, on the same spot
        setZoom(map, 1, undefined, undefined, function () { leavePickArea(map); });
      } else {
        zoomStep(map, dir);
        leavePickArea(map);
      }
      zoomButtons(map, parseFloat(map.getAttribute('data-zoom') || '1') || 1);
    });
    // Picking the area: a tap on the overview zooms there, seats at a comfortable size.
    // Only a pointer's tap picks the area: a click with no pointer behind it (detail 0: a
    // seat's key, Enter or the audio guide's) takes or frees that seat at any zoom.
    scroller.addEventListener('click', function (event) {
      if (!map.hasAttribute('data-pick-area') || event.detail === 0) return;
      event.preventDefault();
      var r = scroller.getBoundingClientRect();
      var size = seatSize(map) || 24;
      var at = [event.clientX - r.left, event.clientY - r.top];
      if (!isKiosk()) {
        // the customer's overview: the spot tapped at seats of at least 24 px
        setZoom(map, 1, at[0], at[1], function () { leavePickArea(map); });
        zoomButtons(map, 1);
        return;
      }
      leavePickArea(map);
      setZoom(map, (parseFloat(map.getAttribute('data-zoom') || '1') || 1) * (KIOSK_SEAT + 4) / size,
        at[0], at[1]);
    }, true);
    // Pinch: two fingers on the map scale it; one finger pans (native scrolling).
    var start = null;
    function dist(t) { return Math.hypot(t[0].clientX - t[1].clientX, t[0].clientY - t[1].clientY); }
    scroller.addEventListener('touchstart', function (e) {
      if (e.touches.length === 2) {
        start = { d: dist(e.touches), zoom: parseFloat(map.getAttribute('data-zoom') || '1') || 1 };
      }
    }, { passive: true });
    scroller.addEventListener('touchmove', function (e) {
      if (!start || e.touches.length !== 2) return;
      e.preventDefault();
      var r = scroller.getBoundingClientRect();
      var cx = (e.touches[0].clientX + e.touches[1].clientX) / 2 - r.left;
      var cy = (e.touches[0].clientY + e.touches[1].clientY) / 2 - r.top;
      setZoom(map, start.zoom * dist(e.touches) / start.d, cx, cy);
    }, { passive: false });
    function end(e) { if (e.touches.length < 2) start = null; }
    scroller.addEventListener('touchend', end);
    scroller.addEventListener('touchcancel', end);
  }

  /* ------------------------------------------------------------------
   * 4c. Seat map: a tap (or click, or Space) on a seat answers in the map's live region
   *     <p data-seat-tapped role="status">: "Row G · Seat 12 · €12.50", " · chosen" once
   *     ticked; a taken seat says so. The words are the map's data-seat-tap* templates and
   *     the price its area's data-price. With as many seats as tickets, another free seat
   *     says how to choose it (data-seat-limit-full) instead of a warning above the map.
   * ------------------------------------------------------------------ */
  /* "Row G · Seat 12" from the map's data-seat-tap template. */
  function seatName(seat) {
    var map = seat.closest('.seatmap');
    var row = seat.closest('.seat-row');
    var rowLabel = row && row.querySelector('.seat-row-label > [aria-hidden="true"]');
    var number = seat.querySelector('i');
    return ((map && map.getAttribute('data-seat-tap')) || '')
      .replace('{row}', rowLabel ? rowLabel.textContent.trim() : '')
      .replace('{seat}', number ? number.textContent.trim() : '');
  }

  function seatTapped(seat, map) {
    var out = partsOf(map).tapped;
    if (!out) return;
    var text = seatName(seat);
    var box = seat.querySelector('input');
    var area = seat.closest('[data-price]');
    var parts = [text];
    if (seat.classList.contains('seat-taken')) {
      parts.push(map.getAttribute('data-seat-tap-taken'));
    } else if (seat.classList.contains('seat-unavailable')) {
      parts.push(map.getAttribute('data-seat-tap-unavailable'));
    } else {
      if (area) parts.push(area.getAttribute('data-price'));
      var moved = box && box.checked && map.__moved && map.__moved.closest('.seat');
      if (moved) {
        parts.push((map.getAttribute('data-seat-moved') || '').replace('{from}', seatName(moved)));
      } else if ((box && box.checked) || (!box && seat.classList.contains('seat-yours'))) {
        parts.push(map.getAttribute('data-seat-tap-chosen'));
      }
    }
    text = parts.filter(Boolean).join(' · ');
    if (out.textContent !== text) out.textContent = text;
  }

  doc.addEventListener('click', function (event) {
    var t = event.target;
    var seat = t && t.closest && t.closest('.seatmap .seat');
    var map = seat && seat.closest('.seatmap');
    if (!map || seat.closest('.seatmap-legend')) return;
    var box = seat.querySelector('input');
    if (box && !box.disabled && t !== box) {
      // A tap or click on the seat ticks its box here rather than through the label: the
      // label would focus the box and scroll it into view, and the page or the map would
      // move under the finger. The focus stays where it was (a keyboard's focus moves by
      // keys); moving it would restyle and lay out two seats more on every tap.
      event.preventDefault();
      box.checked = !box.checked;
      box.dispatchEvent(new Event('input', { bubbles: true }));
      box.dispatchEvent(new Event('change', { bubbles: true }));
    }
    window.setTimeout(function () { seatTapped(seat, map); }, 0);
  });

  /* ------------------------------------------------------------------
   * 5. Print buttons: <button type="button" class="button" data-print>Print tickets</button>
   * ------------------------------------------------------------------ */
  doc.addEventListener('click', function (event) {
    var btn = event.target && event.target.closest && event.target.closest('[data-print]');
    if (!btn) return;
    event.preventDefault();
    window.print();
  });

  /* ------------------------------------------------------------------
   * 5b. Kiosk: print a confirmation's tickets by itself, once per booking.
   *     <button data-print data-autoprint="123456">Print tickets</button>
   * ------------------------------------------------------------------ */
  function autoPrint() {
    var el = doc.querySelector('[data-autoprint]');
    if (!el || !doc.body.classList.contains('mode-kiosk')) return;
    var key = 'printed:' + el.getAttribute('data-autoprint');
    try {
      if (window.sessionStorage.getItem(key)) return;
      window.sessionStorage.setItem(key, '1');
    } catch (e) { /* storage refused: print anyway, the button stays for a reprint */ }
    window.setTimeout(function () { window.print(); }, 300);
  }

  /* ------------------------------------------------------------------
   * 5c. Kiosk collect keypads: each key is a submit button that the server
   *     applies (no JavaScript needed); here it types in place instead.
   *     <div class="kiosk-keypad" data-for="collect-email">
   *       <button type="submit" name="key" value="email:a" data-key="email:a">a</button>
   * ------------------------------------------------------------------ */
  doc.addEventListener('click', function (event) {
    var key = event.target && event.target.closest && event.target.closest('[data-key]');
    var pad = key && key.closest('.kiosk-keypad[data-for]');
    var input = pad && doc.getElementById(pad.getAttribute('data-for'));
    if (!input) return;
    event.preventDefault();
    var what = key.getAttribute('data-key').split(':').slice(1).join(':');
    var value = input.value;
    if (what === 'back') value = value.slice(0, -1);
    else if (what === 'clear') value = '';
    else if (value.length + what.length <= (Number(input.getAttribute('data-max')) || (input.maxLength > 0 ? input.maxLength : 254))) value += what;
    input.value = value;
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });

  /* ------------------------------------------------------------------
   * 6. Counter mode: keys for box-office staff.
   *    <button data-shortcut="e Enter">Change this booking <kbd class="kbd">e</kbd></button>
   *    <input type="radio" data-shortcut="t" data-shortcut-focus="#reference">
   *    data-shortcut lists the keys (KeyboardEvent.key values, space-separated) the page
   *    draws in its <kbd>s. Outside text fields a key presses the button or follows the link
   *    that has it, chooses the radio (and focuses its data-shortcut-focus field) or focuses
   *    the field. Enter acts only where nothing that takes Enter itself has focus; Escape
   *    ("back one step") acts in fields too, and letters in a digits-only look-up field. Only on the counter terminal (body.mode-counter).
   * ------------------------------------------------------------------ */
  function shortcutFor(key) {
    var targets = doc.querySelectorAll('[data-shortcut]');
    for (var i = 0; i < targets.length; i++) {
      var el = targets[i];
      if (el.disabled || el.closest('[hidden]')) continue;
      var keys = (el.getAttribute('data-shortcut') || '').split(/\s+/);
      if (keys.indexOf(key) >= 0) return el;
    }
    return null;
  }

  /* The counter's look-up field (autofocused, so a scanner can type into it) holds a booking
   * number or a scanned code: <input data-shortcut-digits="TKT">. While it holds only digits, a
   * letter cannot be part of what is typed, so a letter key acts as the page's key (n: next
   * customer), except the first letter of a code typed into the empty field. */
  function letterActsIn(field, key) {
    if (!field.hasAttribute('data-shortcut-digits') || key.length !== 1 || !/[a-z]/i.test(key)) return false;
    if (!/^[0-9]*$/.test(field.value)) return false;
    var prefix = (field.getAttribute('data-shortcut-digits') || '').toUpperCase();
    return !(field.value === '' && prefix.charAt(0) === key.toUpperCase());
  }

  function pressShortcut(el) {
    if (el.matches('input[type=radio], input[type=checkbox]')) {
      if (!el.checked) {
        el.checked = true;
        el.dispatchEvent(new Event('change', { bubbles: true }));
      } else {
        focusFor(el);
      }
      return;
    }
    if (el.matches('input, select, textarea')) {
      el.focus();
      return;
    }
    el.click();
  }

  doc.addEventListener('keydown', function (event) {
    if (!doc.body.classList.contains('mode-counter')) return;
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented || event.isComposing) return;
    var t = event.target && event.target.closest ? event.target : null;
    var key = event.key;
    if (key === 'Enter') {
      if (t && t.closest('input, textarea, select, button, a[href], summary, [contenteditable]')) return;
    } else if (key !== 'Escape') {
      var field = t && t.closest('input:not([type=radio]):not([type=checkbox]), textarea, select, [contenteditable]');
      if (field && !letterActsIn(field, key) && !slashActsIn(field, key)) return;
    }
    var el = shortcutFor(key);
    if (!el) return;
    event.preventDefault();
    pressShortcut(el);
  });

  /* "/" finds a booking from any counter page, whatever has the focus: in an empty field
   * (the look-up's own, autofocused for a scanner, or any other), in a field of numbers (a
   * count, an amount, a booking number typed so far) it is the page's key, never a typed "/".
   * Text keeps it: a name, an e-mail address, a ticket code a scanner is typing. */
  function slashActsIn(field, key) {
    if (key !== '/' || field.isContentEditable) return false;
    if (field.value === '') return true;
    var numeric = field.matches('input[type=number], input[inputmode=numeric], input[inputmode=decimal], [data-shortcut-digits]');
    return numeric && /^[0-9.,\s]*$/.test(field.value);
  }

  /* Where the next key belongs on arrival at a counter page: a page's autofocused field, with
   * a count's content selected (a typed 2 replaces the 0, not "20"); without one, the seat map
   * takes the focus (its one Tab stop: the seat last ticked), so the arrow keys and Space work
   * at once and the page's letter keys still act. */
  function counterFocus() {
    if (!doc.body.classList.contains('mode-counter')) return;
    // The browser's own autofocus may come after this script has run: focus it here.
    var auto = doc.querySelector('main [autofocus]');
    if (auto && !auto.disabled) {
      auto.focus();
      if (auto.matches('input[type=number]')) auto.select();
      return;
    }
    var a = doc.activeElement;
    if (a && a !== doc.body) return;
    var seat = doc.querySelector('.seatmap .seat-row input[type=checkbox]:not([tabindex="-1"]):not(:disabled)');
    if (seat) seat.focus();
  }

  /* A chosen radio's field: <input type="radio" data-shortcut-focus="#reference"> focuses
   * #reference when chosen (by key or pointer); <input data-required-with="#method-terminal">
   * is required (and says so) while that radio is chosen. */
  function focusFor(radio) {
    var sel = radio.getAttribute('data-shortcut-focus');
    var f = sel ? doc.querySelector(sel) : null;
    if (f) f.focus();
  }

  function syncRequired(root) {
    each(root, '[data-required-with]', function (f) {
      var src = doc.querySelector(f.getAttribute('data-required-with'));
      if (!src) return;
      f.required = src.checked;
      if (src.checked) {
        f.setAttribute('aria-required', 'true');
        return;
      }
      f.removeAttribute('aria-required');
      // Not needed any more: the server's "type the reference" no longer applies.
      if (f.getAttribute('aria-invalid') === 'true') {
        f.removeAttribute('aria-invalid');
        var err = f.id && doc.getElementById(f.id + '-error');
        if (err) err.hidden = true;
      }
    });
  }

  doc.addEventListener('change', function (event) {
    var t = event.target;
    if (!t || !t.matches || !t.matches('input[type=radio]')) return;
    if (t.checked && t.hasAttribute('data-shortcut-focus')) focusFor(t);
    syncRequired(doc);
    methodLabel(t);
  });

  /* The counter's payment button says what it does with the method chosen:
   * <button data-label-reader="Take payment by card" data-label-cash="…"><span data-method-label>…</span> */
  function methodLabel(radio) {
    if (radio.name !== 'method' || !radio.checked || !radio.form) return;
    var button = radio.form.querySelector('[data-label-' + radio.value + ']');
    var span = button && button.querySelector('[data-method-label]');
    if (span) span.textContent = button.getAttribute('data-label-' + radio.value);
  }

  /* ------------------------------------------------------------------
   * 6b. Cash at the counter: the change due, live.
   *    <div data-cash-change data-due-cents="1325" data-currency="EUR">
   *      <input name="given"> … <p class="change-due" hidden>Change due: <strong data-change-due></strong></p>
   *    Once the amount given covers what is due, the change is shown and the form carries
   *    confirm=1: the clerk has seen it, so the server records the payment at once. Without
   *    this script the server shows the change due first and asks to confirm.
   * ------------------------------------------------------------------ */
  function parseCash(s) {
    s = (s || '').trim();
    if (!s) return null;
    var whole = s, frac = '';
    var i = Math.max(s.lastIndexOf('.'), s.lastIndexOf(','));
    if (i >= 0 && s.length - i - 1 >= 1 && s.length - i - 1 <= 2) {
      whole = s.slice(0, i);
      frac = s.slice(i + 1);
    }
    whole = whole.replace(/[.,\s\u00a0]/g, '') || '0';
    if (!/^\d{1,9}$/.test(whole) || !/^\d{0,2}$/.test(frac)) return null;
    var f = frac === '' ? 0 : parseInt(frac, 10) * (frac.length === 1 ? 10 : 1);
    return parseInt(whole, 10) * 100 + f;
  }

  function formatMoney(cents, currency) {
    try {
      return new Intl.NumberFormat(doc.documentElement.lang || undefined,
        { style: 'currency', currency: currency }).format(cents / 100);
    } catch (e) {
      return (cents / 100).toFixed(2) + ' ' + currency;
    }
  }

  function updateChange(box) {
    var input = box.querySelector('input');
    var out = box.querySelector('[data-change-due]');
    var line = box.querySelector('.change-due');
    var form = box.closest('form');
    if (!input || !out || !form) return;
    var due = parseInt(box.getAttribute('data-due-cents') || '', 10);
    var cents = parseCash(input.value);
    var live = form.querySelector('input[name=confirm][data-live]');
    if (isNaN(due) || cents === null || cents < due) {
      out.textContent = '';
      if (line) line.hidden = true;
      if (live) live.remove();
      return;
    }
    out.textContent = formatMoney(cents - due, box.getAttribute('data-currency') || 'EUR');
    if (line) line.hidden = false;
    if (!live) {
      live = doc.createElement('input');
      live.type = 'hidden';
      live.name = 'confirm';
      live.value = '1';
      live.setAttribute('data-live', '');
      form.appendChild(live);
    }
  }

  doc.addEventListener('input', function (event) {
    var box = event.target && event.target.closest && event.target.closest('[data-cash-change]');
    if (box) updateChange(box);
  });

  /* ------------------------------------------------------------------
   * 7. Ticket counts with − and +.
   *    <span data-stepper><button data-step="-1" hidden>−</button>
   *      <input type="number" min="0" max="9"><button data-step="1" hidden>+</button></span>
   *    The number field works on its own (without JavaScript); here the buttons are
   *    shown and change the count within min and max. A button that can do nothing
   *    more is disabled.
   * ------------------------------------------------------------------ */
  function setupStepper(el) {
    var input = el.querySelector('input[type=number]');
    if (!input || el.hasAttribute('data-stepper-ready')) return;
    el.setAttribute('data-stepper-ready', '');
    var buttons = el.querySelectorAll('[data-step]');
    function bounds() {
      var min = parseInt(input.getAttribute('min') || '0', 10);
      var max = parseInt(input.getAttribute('max') || '', 10);
      return { min: isNaN(min) ? 0 : min, max: isNaN(max) ? Infinity : max };
    }
    function value() {
      var n = parseInt(input.value, 10);
      return isNaN(n) ? 0 : n;
    }
    function refresh() {
      var b = bounds(), n = value();
      Array.prototype.forEach.call(buttons, function (btn) {
        var step = parseInt(btn.getAttribute('data-step'), 10);
        btn.disabled = step < 0 ? n <= b.min : n >= b.max;
      });
    }
    Array.prototype.forEach.call(buttons, function (btn) {
      btn.hidden = false;
      btn.addEventListener('click', function () {
        var b = bounds();
        var n = Math.min(b.max, Math.max(b.min, value() + parseInt(btn.getAttribute('data-step'), 10)));
        input.value = String(n);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        input.dispatchEvent(new Event('change', { bubbles: true }));
        refresh();
      });
    });
    input.addEventListener('input', refresh);
    refresh();
  }

  /* ------------------------------------------------------------------
   * 6b. The ticket step's running total: <p data-ticket-total data-total-none data-total-one
   *     data-total-other data-fee-cents> ({n}, {total}, {fees}) counts the number fields with
   *     data-price-cents of its form, each ticket with its booking fee (data-fee-cents), so
   *     the total is the one the next steps show; once a ticket is chosen, a notice about the
   *     counts ([data-clear-when-chosen]) and the fields' invalid marks go away.
   * ------------------------------------------------------------------ */
  function updateTicketTotal(form) {
    var out = form.querySelector('[data-ticket-total]');
    if (!out) return;
    var fee = parseInt(out.getAttribute('data-fee-cents') || '0', 10) || 0;
    var n = 0, cents = 0, currency = '';
    each(form, 'input[data-price-cents]', function (f) {
      var q = parseInt(f.value, 10);
      if (isNaN(q) || q <= 0) return;
      n += q;
      cents += q * ((parseInt(f.getAttribute('data-price-cents'), 10) || 0) + fee);
      currency = f.getAttribute('data-currency') || currency;
    });
    var text = n === 0 ? out.getAttribute('data-total-none') :
      (out.getAttribute(n === 1 ? 'data-total-one' : 'data-total-other') || '')
        .replace('{n}', String(n)).replace('{total}', formatMoney(cents, currency || 'EUR'))
        .replace('{fees}', formatMoney(n * fee, currency || 'EUR'));
    if (text && out.textContent !== text) out.textContent = text;
    if (n > 0) {
      each(doc, '[data-clear-when-chosen]', function (el) { el.hidden = true; });
      each(form, 'input[aria-invalid]', function (f) { f.removeAttribute('aria-invalid'); });
    }
  }

  doc.addEventListener('input', function (event) {
    var t = event.target;
    if (!t || !t.matches || !t.matches('input[data-price-cents]')) return;
    if (t.form) updateTicketTotal(t.form);
  });

  /* ------------------------------------------------------------------
   * 7. Live parts: <div id="…" data-live> updated in place by the forms inside it (hx-post,
   *    hx-select of the same part). The server answers as to a plain form post: a redirect
   *    back to this page. Any other answer (the change ended, an error page) is shown whole,
   *    as a plain form post would have shown it: nothing is swapped into the part.
   * ------------------------------------------------------------------ */
  /* The control that sent a live part's request gets the focus back in the new part (the
   * busy state disabled it, which dropped its focus), without scrolling: the next tap or key
   * goes where the last one went. Only when it had the focus: a control pressed through its
   * shortcut key leaves the focus where it was, so the page's other keys (Enter to pay at the
   * counter) still work. */
  var liveFocus = null;
  doc.addEventListener('htmx:beforeRequest', function (event) {
    var d = event.detail || {};
    var sub = busyTargetFor(d);
    liveFocus = sub && sub.id && sub === doc.activeElement && sub.closest && sub.closest('[data-live]') ? sub.id : null;
  });
  doc.addEventListener('htmx:afterSettle', function () {
    if (!liveFocus) return;
    var el = doc.getElementById(liveFocus);
    liveFocus = null;
    if (el && !el.disabled && el.focus) el.focus({ preventScroll: true });
  });

  doc.addEventListener('htmx:beforeSwap', function (event) {
    var d = event.detail || {};
    var elt = d.requestConfig && d.requestConfig.elt;
    if (!elt || !elt.closest || !elt.closest('[data-live]')) return;
    var xhr = d.xhr;
    var url = null;
    try { url = xhr && xhr.responseURL ? new URL(xhr.responseURL) : null; } catch (e) { url = null; }
    if (xhr && xhr.status === 200 && url && url.pathname === location.pathname) return;
    d.shouldSwap = false;
    if (xhr && xhr.status > 0 && xhr.status < 400 && url) {
      location.assign(url.href);
      return;
    }
    if (xhr && xhr.responseText) {
      doc.open();
      doc.write(xhr.responseText);
      doc.close();
      return;
    }
    location.reload();
  });

  /* ------------------------------------------------------------------
   * Start-up, and again for content htmx swaps in.
   * ------------------------------------------------------------------ */
  function init(root) {
    each(root, '[data-countdown-expires]', startCountdown);
    each(root, '.seatmap[data-max]', function (m) { updateSeatmap(m, true); });
    each(root, '.seatmap', setupZoom);
    each(root, '.seatmap', setupSeatKeys);
    syncRequired(root);
    each(root, '[data-cash-change]', updateChange);
    each(root, '[data-stepper]', setupStepper);
  }

  function ready() {
    init(doc);
    counterFocus();
    setupIdleReset();
    autoPrint();
  }

  if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', ready);
  else ready();

  doc.addEventListener('htmx:load', function (event) { init(event.target); });
})();

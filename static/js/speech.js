/*
 * The kiosk's speech mode, for a guest who cannot see the screen: a keypad navigator and
 * headphones. Loaded on kiosk pages only; off until F9, and nothing changes for sighted use
 * while it is off. Every word comes from the page (#speech-words, rendered by the server in the
 * page's language); this file holds none. Speech is the browser's own speechSynthesis with a
 * voice of the page's language, offline: nothing said leaves the kiosk.
 *
 * Keys: F9 on/off; ArrowDown/ArrowUp next/previous item of the main content; ArrowLeft/
 * ArrowRight change a stepper; Enter activates (enters the seat map); Escape back (leaves the
 * seat map); F1 help; F2 repeat; F3/F4 slower/faster; F5/F6 quieter/louder; F10 the privacy
 * curtain (the screen blank but for "Audio guide in use", for as long as speech is on). Inside the seat map
 * the arrows are app.js's seat keys; this file only speaks the seat they land on.
 *
 * The setting, rate and volume live in sessionStorage: this visit only. The attract screen
 * (a new visit) clears the tab's session storage.
 */
(function () {
  'use strict';
  var doc = document;
  var store = window.sessionStorage;
  var KEYS = ['speech.on', 'speech.rate', 'speech.volume', 'speech.curtain'];
  var words = doc.getElementById('speech-words');
  if (!words || !store) return;
  // The end of a visit leaves nothing of the guest in this tab for the next: the speech
  // settings, and which bookings' tickets were printed (app.js) go with the visit.
  if (words.hasAttribute('data-speech-end')) {
    store.clear();
  }

  var last = '';
  var warned = false;
  var quiet = false; // a key is down: live regions it changes are not spoken over its answer
  var items = [];
  var at = -1;

  function on() { return store.getItem('speech.on') === '1'; }

  /* The privacy curtain: while speech is on, F10 blanks the screen (what the guest buys, their
     e-mail, stays theirs); keys go on working under it; it lifts with speech or the visit. */
  var curtain = null;
  function showCurtain() {
    var up = on() && store.getItem('speech.curtain') === '1';
    doc.documentElement.classList.toggle('speech-curtain', up);
    if (up && !curtain) {
      curtain = doc.createElement('div');
      curtain.className = 'speech-curtain-cover';
      curtain.setAttribute('aria-hidden', 'true');
      curtain.setAttribute('data-testid', 'speech-curtain');
      curtain.textContent = word('curtain');
      doc.body.appendChild(curtain);
    }
    if (curtain) curtain.hidden = !up;
  }
  function toggleCurtain() {
    var up = store.getItem('speech.curtain') !== '1';
    if (up) store.setItem('speech.curtain', '1');
    else store.removeItem('speech.curtain');
    showCurtain();
    say(word(up ? 'curtain-on' : 'curtain-off'));
  }
  function num(key, dflt) { var v = parseFloat(store.getItem(key)); return isNaN(v) ? dflt : v; }
  function word(name) { return words.getAttribute('data-' + name) || ''; }
  /* A template's {name} parts filled from vals. */
  function fill(name, vals) {
    return word(name).replace(/\{(\w+)\}/g, function (m, k) { return k in vals ? String(vals[k]) : m; });
  }
  function text(el) { return el ? (el.textContent || '').replace(/\s+/g, ' ').trim() : ''; }
  /* A message as it is read: its blocks (paragraphs, list items, headings…) as sentences, each
     ended by a full stop when it has none (a heading has none), without what is only drawn
     (aria-hidden: icons) or hidden, and without its buttons (they are items of their own). */
  var BLOCK = /^(P|DIV|LI|H[1-6]|DD|DT|TR|UL|OL|DL|SECTION|HEADER|FOOTER|FIELDSET|LEGEND|BLOCKQUOTE|FIGCAPTION)$/;
  function spokenText(el) {
    var parts = [];
    var cur = '';
    function flush() {
      var t = cur.replace(/\s+/g, ' ').trim();
      cur = '';
      if (t) parts.push(/[.!?:;…]$/.test(t) ? t : t + '.');
    }
    function walk(n) {
      if (n.nodeType === 3) { cur += n.nodeValue; return; }
      if (n.nodeType !== 1 || n.hidden || n.getAttribute('aria-hidden') === 'true' || /^(BUTTON|KBD|SCRIPT|STYLE|TEMPLATE)$/.test(n.tagName)) return;
      var block = BLOCK.test(n.tagName);
      if (block) flush();
      for (var c = n.firstChild; c; c = c.nextSibling) walk(c);
      if (block) flush();
    }
    if (el) walk(el);
    flush();
    return parts.join(' ');
  }

  function voiceFor(lang) {
    var synth = window.speechSynthesis;
    if (!synth || !synth.getVoices) return null;
    var want = lang.toLowerCase();
    var voices = synth.getVoices() || [];
    for (var i = 0; i < voices.length; i++) {
      var v = (voices[i].lang || '').toLowerCase().replace('_', '-');
      if (v === want || v.split('-')[0] === want.split('-')[0]) return voices[i];
    }
    return null;
  }

  /* Say s now: whatever is being said stops first, nothing queues behind it. */
  function say(s) {
    // Marks drawn for the eye (a tick, a cross, the delete key's arrow) are not words, and a
    // title's own question mark needs no full stop after it.
    s = (s || '').replace(/[✓✔✕✗⌫]\s*/g, '').replace(/([!?.…])\.(\s|$)/g, '$1$2').replace(/([^\s.])\.,(\s)/g, '$1,$2').trim();
    if (!s) return;
    last = s;
    var synth = window.speechSynthesis;
    var lang = doc.documentElement.lang || 'en';
    var voice = voiceFor(lang);
    if (!synth || !voice) {
      if (!warned) {
        warned = true;
        console.warn('speech: no voice for language ' + lang + '; the kiosk stays silent');
      }
      return;
    }
    synth.cancel();
    var u = new window.SpeechSynthesisUtterance(s);
    u.lang = lang;
    u.voice = voice;
    u.rate = num('speech.rate', 1);
    u.volume = num('speech.volume', 0.8);
    synth.speak(u);
  }

  /* ---- the items of the main content, in page order ---- */
  /* An item the guest can reach: shown, enabled, and not hidden from assistive technology (a
     form's default button, there for the scanner's Enter, is drawn 1 px and aria-hidden). */
  function visible(el) {
    return !el.closest('[hidden]') && !el.closest('[aria-hidden="true"]') && !el.disabled && el.getClientRects().length > 0;
  }
  function collect() {
    var main = doc.getElementById('main');
    if (!main) return [];
    var sel = 'a[href], button, input:not([type=hidden]), select, textarea, [data-stepper], .seatmap, details > summary';
    // The page's items, then the header's Start over (the way out of a visit), last.
    var found = Array.prototype.slice.call(main.querySelectorAll(sel));
    var over = doc.querySelector('[data-testid="start-over"] button');
    if (over) found.push(over);
    return found.filter(function (el) {
      // A closed section offers only its heading (Enter opens it), as it shows only that.
      var shut = el.closest('details:not([open])');
      if (shut && !(el.matches('summary') && el.parentElement === shut)) return false;
      if (el.matches('.seatmap')) return true;
      if (el.closest('.seatmap')) return false;
      if (!el.matches('[data-stepper]') && el.closest('[data-stepper]')) return false;
      if (el.matches('[data-stepper]')) return true;
      return visible(el);
    });
  }
  function nameOf(el) {
    if (el.hasAttribute('data-speech-name')) return el.getAttribute('data-speech-name');
    if (el.getAttribute('aria-label')) return el.getAttribute('aria-label');
    if (el.id) {
      var l = doc.querySelector('label[for="' + el.id + '"]');
      if (l) return text(l);
    }
    var wrap = el.closest('label');
    if (wrap) return text(wrap);
    return ownText(el) || el.getAttribute('placeholder') || el.value || '';
  }
  /* An element's words without the key badges (<kbd>) the counter's pages draw in it. A
     control drawn as lines of their own (a choice's name above its description) says each
     line as a sentence, where the eye sees them apart. */
  function ownText(el) {
    var src = el;
    if (el.querySelector('kbd')) {
      src = el.cloneNode(true);
      Array.prototype.forEach.call(src.querySelectorAll('kbd'), function (k) { k.remove(); });
    }
    return lines(src) || text(src);
  }
  function lines(el) {
    var parts = [];
    for (var n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3 && n.nodeValue.trim()) return ''; // words of its own: one phrase
      if (n.nodeType !== 1 || n.getAttribute('aria-hidden') === 'true') continue;
      var t = text(n);
      if (t) parts.push(t);
    }
    if (parts.length < 2) return '';
    // Each line but the last ends as a sentence; the last is ended by what follows the name.
    return parts.map(function (t, i) { return i === parts.length - 1 || /[.!?:;…]$/.test(t) ? t : t + '.'; }).join(' ');
  }
  function stepperInput(el) { return el.querySelector('input'); }
  function describe(el) {
    var pos = { pos: at + 1, total: items.length };
    if (el.matches('[data-stepper]')) {
      var input = stepperInput(el);
      return fill('stepper', { name: nameOf(el), count: input ? input.value || '0' : '0', price: el.getAttribute('data-speech-price') || '', pos: pos.pos, total: pos.total });
    }
    if (el.matches('.seatmap')) {
      var region = el.querySelector('[role=region]');
      return fill('map-item', { screen: region ? region.getAttribute('aria-label') : '', pos: pos.pos, total: pos.total });
    }
    var state = '';
    if (el.type === 'checkbox' || el.type === 'radio') state = word(el.checked ? 'checked' : 'unchecked');
    else if (el.getAttribute('aria-pressed')) state = word(el.getAttribute('aria-pressed') === 'true' ? 'checked' : 'unchecked');
    else if (el.getAttribute('aria-current')) state = word('current');
    else if (el.matches('summary')) state = word(el.parentElement.open ? 'open' : 'closed');
    if (state) return fill('item-state', { name: nameOf(el), state: state, pos: pos.pos, total: pos.total });
    return fill('item', { name: nameOf(el), pos: pos.pos, total: pos.total });
  }
  function move(by) {
    items = collect();
    if (!items.length) { say(word('nothing')); return; }
    var cur = items.indexOf(items[at]) >= 0 ? at : -1;
    at = cur < 0 ? (by > 0 ? 0 : items.length - 1) : Math.max(0, Math.min(items.length - 1, cur + by));
    var el = items[at];
    var target = el.matches('[data-stepper]') ? stepperInput(el) : el.matches('.seatmap') ? el.querySelector('[role=region]') : el;
    if (target && target.focus) target.focus();
    say(describe(el));
  }
  /* The item the guest is on; when the part of the page that held it was swapped in again
     (htmx), the item at the same place of the new part. */
  function current() {
    if (at < 0) return null;
    if (items[at] && doc.contains(items[at])) return items[at];
    items = collect();
    return items[at] || null;
  }

  function step(by) {
    var el = current();
    if (!el || !el.matches('[data-stepper]')) return;
    var btn = el.querySelector('[data-step="' + by + '"]');
    var input = stepperInput(el);
    if (btn) btn.click();
    else if (input) {
      input.value = String(Math.max(0, (parseInt(input.value, 10) || 0) + by));
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }
    say(fill('stepper-changed', { name: nameOf(el), count: input ? input.value : '' }));
  }

  /* ---- the seat map: app.js moves between seats; this speaks where the focus lands ---- */
  /* The seat's own label says row, number, kind and free; a ticked seat adds "chosen". */
  function seatWords(box) {
    return box.checked ? fill('seat', { seat: nameOf(box), state: word('seat-chosen') }) : nameOf(box);
  }
  /* Rows with free seats as runs: "D to H, K". */
  function runs(labels) {
    var out = [];
    var i = 0;
    while (i < labels.length) {
      if (labels[i] === null) { i++; continue; }
      var j = i;
      while (j + 1 < labels.length && labels[j + 1] !== null) j++;
      if (j - i >= 2) out.push(fill('range', { from: labels[i], to: labels[j] }));
      else for (var k = i; k <= j; k++) out.push(labels[k]);
      i = j + 1;
    }
    return out.join(', ');
  }
  function enterMap(map) {
    // the rows of seats (a cross aisle is a row of the layout, not one a guest can sit in)
    var rows = map.querySelectorAll('.seat-row[role=group]');
    // one entry per row, in order: its label when it has a free seat, else null (ends a run)
    var free = Array.prototype.map.call(rows, function (r) {
      if (!r.querySelector('input[type=checkbox]:not(:disabled):not(:checked)')) return null;
      return text(r.querySelector('.seat-row-label [aria-hidden]')) || text(r.querySelector('.seat-row-label'));
    });
    var region = map.querySelector('[role=region]');
    var start = map.querySelector('.seat-row input[tabindex="0"]') || map.querySelector('.seat-row input[type=checkbox]:not(:disabled)');
    var intro = fill('map', { screen: region ? region.getAttribute('aria-label') : '', rows: rows.length, free: runs(free) });
    if (start) {
      entering = true; // the introduction says the seat; its focus says nothing of its own
      start.focus();
      entering = false;
      intro += ' ' + seatWords(start);
    }
    say(intro);
  }
  function inSeat(el) { return el && el.matches && el.matches('.seatmap .seat-row input[type=checkbox]'); }

  /* What the guest can do here: the page's own hint (data-speech-hint), else the general one. */
  function hint() {
    var own = doc.querySelector('main [data-speech-hint]');
    return (own && own.getAttribute('data-speech-hint')) || word('hint');
  }
  function where() {
    var heading = doc.querySelector('main h1') || doc.querySelector('h1') || doc.querySelector('main [aria-labelledby]');
    if (heading && heading.hasAttribute('aria-labelledby')) heading = doc.getElementById(heading.getAttribute('aria-labelledby'));
    return fill('where', { title: (heading && text(heading)) || doc.title });
  }
  function help() { say([where(), hint(), word('keys')].join(' ')); }
  /* The page's own messages at its arrival (an error after a form was sent, what a step did):
     said with where the guest is, before what they can do. */
  function notices() {
    return Array.prototype.map.call(doc.querySelectorAll('main .notice[role=alert], main .notice[role=status]'), function (n) {
      return n.closest('[hidden]') ? '' : spokenText(n);
    }).filter(Boolean).join(' ');
  }
  function announce() { say([where(), notices(), hint()].filter(Boolean).join(' ')); }
  function adjust(key, by, lo, hi, dflt, what) {
    var v = Math.round(Math.max(lo, Math.min(hi, num(key, dflt) + by)) * 100) / 100;
    store.setItem(key, String(v));
    say(word(what));
  }

  var actions = {
    F1: help,
    F10: toggleCurtain,
    F2: function () { say(last); },
    F3: function () { adjust('speech.rate', -0.25, 0.5, 2.5, 1, 'slower'); },
    F4: function () { adjust('speech.rate', 0.25, 0.5, 2.5, 1, 'faster'); },
    F5: function () { adjust('speech.volume', -0.2, 0.2, 1, 0.8, 'quieter'); },
    F6: function () { adjust('speech.volume', 0.2, 0.2, 1, 0.8, 'louder'); },
    ArrowDown: function () { move(1); },
    ArrowUp: function () { move(-1); },
    ArrowRight: function () { step(1); },
    ArrowLeft: function () { step(-1); },
    // Back one step, but never past the start of the visit (the attract screen, the choice
    // of what to do): behind it is the visit before, or a browser's error page no key leads
    // out of.
    Escape: function () {
      if (doc.querySelector('[data-speech-start]')) { say(word('at-start') + ' ' + hint()); return; }
      window.history.back();
    }
  };

  /* Escape leaves the map; arrows and Enter are app.js's seat keys, answered below by where
     the focus lands (focusin) and what the seat became (change). */
  var arrowFrom = null; // the seat an arrow key leaves, until the focus lands
  var entering = false;
  function seatKey(event) {
    if (/^Arrow/.test(event.key)) {
      var from = event.target;
      arrowFrom = from;
      // app.js moves the focus after this (its own keydown): a key that moved nothing is at
      // the map's edge, and says so rather than nothing.
      // (A key pressed before this runs has its own from, which this leaves alone.)
      window.setTimeout(function () {
        if (arrowFrom !== from) return;
        arrowFrom = null;
        if (doc.activeElement === from) say(word('edge') + ' ' + seatWords(from));
      }, 0);
      return;
    }
    if (event.key !== 'Escape') return;
    event.preventDefault();
    var map = event.target.closest('.seatmap');
    var region = map && map.querySelector('[role=region]');
    if (region) region.focus();
    say(word('map-left'));
  }
  doc.addEventListener('focusin', function (event) {
    if (!on() || entering || !inSeat(event.target)) return;
    var from = arrowFrom;
    arrowFrom = null;
    say(seatWords(event.target) + passed(from, event.target));
  });
  /* The seats of a row an arrow went past without landing (taken, not available), each by
     its name without the row: " Passed: seat 11, standard, taken; seat 12, standard, taken." */
  function passed(from, to) {
    var row = to.closest('.seat-row');
    if (!from || from.closest('.seat-row') !== row) return '';
    var all = Array.prototype.slice.call(row.querySelectorAll('input[type=checkbox]'));
    var a = all.indexOf(from);
    var b = all.indexOf(to);
    var between = all.slice(Math.min(a, b) + 1, Math.max(a, b));
    if (a > b) between.reverse();
    var names = between.map(function (box) { return nameOf(box).replace(/^[^,]*,\s*/, ''); });
    return names.length ? '. ' + fill('passed', { seats: names.join('; ') }) : '';
  }
  doc.addEventListener('change', function (event) {
    if (on() && inSeat(event.target)) say(seatWords(event.target));
  });

  /* A key of an on-screen keypad types into its field: the field's name and all it now
     holds are said, character by character, so the guest knows what was typed. */
  function typed(key) {
    var pad = key.closest('.kiosk-keypad[data-for]');
    var input = pad && doc.getElementById(pad.getAttribute('data-for'));
    if (!input) return '';
    // A symbol is read back by its key's name ("at sign"), as the key itself is said.
    var named = {};
    Array.prototype.forEach.call(pad.querySelectorAll('[data-key][aria-label]'), function (k) {
      var ch = k.getAttribute('data-key').split(':').slice(1).join(':');
      if (ch.length === 1) named[ch] = k.getAttribute('aria-label');
    });
    var value = input.value ? input.value.split('').map(function (ch) { return named[ch] || ch; }).join(' ') : word('empty');
    return fill('typed', { field: nameOf(input), value: value });
  }

  function enter(event) {
    var el = current();
    if (!el) return;
    if (el.matches('[data-key]')) {
      event.preventDefault();
      answered = 'Enter';
      el.click();
      say(typed(el));
      return;
    }
    if (el.matches('.seatmap')) { event.preventDefault(); answered = 'Enter'; enterMap(el); return; }
    if (el.type === 'checkbox' || el.type === 'radio') {
      event.preventDefault();
      answered = 'Enter';
      el.click();
      say(describe(el));
      return;
    }
    if (el.matches('summary')) {
      event.preventDefault();
      answered = 'Enter';
      el.click();
      items = collect(); // its fields come or go with it
      at = items.indexOf(el);
      say(describe(el));
      return;
    }
    if (el.matches('button, a[href], input[type=submit]')) {
      // The item itself, even when the focus was lost with a part of the page swapped in again.
      event.preventDefault();
      answered = 'Enter';
      el.click();
    }
  }

  /* A key this file answered has no other effect: its keypress (which a synthetic or
     remapped key may send even after a cancelled keydown) is cancelled too, so an Enter that
     entered the seat map does not then submit the seat form. */
  var answered = '';
  doc.addEventListener('keypress', function (event) {
    if (answered && event.key === answered) event.preventDefault();
  }, true);
  doc.addEventListener('keyup', function () { answered = ''; quiet = false; }, true);

  doc.addEventListener('keydown', function (event) {
    answered = '';
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'F9') {
      event.preventDefault();
      if (on()) {
        say(word('off'));
        KEYS.forEach(function (k) { store.removeItem(k); });
        showCurtain();
      } else {
        store.setItem('speech.on', '1');
        say(word('on') + ' ' + where());
      }
      return;
    }
    if (!on()) return;
    quiet = true;
    if (inSeat(event.target) && /^(Arrow|Enter|Escape| )/.test(event.key)) {
      answered = event.key;
      seatKey(event);
      return;
    }
    if (event.key === 'Enter') { enter(event); return; }
    var act = actions[event.key];
    if (!act) return;
    event.preventDefault();
    act();
  }, true);

  /* ---- what the page itself says: status and alert messages, live regions, idle warning ---- */
  var LIVE = '[role=status], [role=alert], [aria-live], #idle-warning';
  // What each region last said, by its id or test id where it has one: a part of the page
  // swapped in again (a page's own refresh every second) is a new element with the same
  // message, and only a changed message is news.
  var heard = new WeakMap();
  var heardByName = {};
  function heardBefore(region, t) {
    var name = region.id || region.getAttribute('data-testid');
    var was = name ? heardByName[name] : heard.get(region);
    if (name) heardByName[name] = t;
    else heard.set(region, t);
    return was === t;
  }
  function regionOf(node) {
    var el = node.nodeType === 1 ? node : node.parentElement;
    return el && el.closest ? el.closest(LIVE) : null;
  }
  var observer = new MutationObserver(function (records) {
    if (!on()) return;
    var done = [];
    function each(r, fn) {
      var own = regionOf(r.target);
      if (own) fn(own);
      // A region swapped in whole (htmx replaces the part of the page an action changed) is
      // news too: its message was never seen before.
      // Only its outermost regions: a region inside another is said with it.
      Array.prototype.forEach.call(r.addedNodes || [], function (n) {
        if (n.nodeType !== 1) return;
        if (n.matches(LIVE)) { fn(n); return; }
        Array.prototype.forEach.call(n.querySelectorAll(LIVE), function (region) {
          var outer = region.parentElement && region.parentElement.closest(LIVE);
          if (!outer || !n.contains(outer)) fn(region);
        });
      });
    }
    records.forEach(function (r) { each(r, function (region) { speakRegion(r, region, done); }); });
  });
  function speakRegion(r, region, done) {
    if (done.indexOf(region) >= 0) return;
    done.push(region);
    if (region.id === 'idle-warning') {
      // only its appearing is news; its seconds tick every second
      if (r.attributeName === 'hidden' && !region.hidden) say(spokenText(region) + ' ' + word('idle-key'));
      return;
    }
    // The seats' hold counts down every minute for screen readers; here it would cut into
    // whatever is being said, each minute: its warning near the end (an alert) speaks instead.
    if (region.matches('.countdown-sr')) return;
    // The seat map's answer to a tap (what was chosen, and what was freed for it) is news a
    // key cannot say itself: it is spoken whenever it comes, after the seat's own state.
    if ((quiet && !region.hasAttribute('data-seat-tapped')) || region.closest('[hidden]')) return;
    var t = spokenText(region);
    if (t && !heardBefore(region, t)) say(t);
  }

  /* The device page (staff): whether this kiosk's browser has a voice for each language. */
  function showVoices() {
    Array.prototype.forEach.call(doc.querySelectorAll('[data-speech-voices] [data-lang]'), function (li) {
      li.textContent = li.getAttribute(voiceFor(li.getAttribute('data-lang')) ? 'data-yes' : 'data-no');
    });
  }

  /* The attract screen (a kiosk at rest) tells the service which of the site's languages this
     kiosk has a voice for, so that a silent one is in the operator's log, not only on the
     device page. A browser lists its voices a moment after the page loads, or never when it
     has none: the answer goes when they are listed, else after 3 s, and again if it changes. */
  function reportVoices(el) {
    var token = el.querySelector('input[name="_csrf"]');
    var sent = '';
    function send() {
      var body = new URLSearchParams();
      if (token) body.append('_csrf', token.value);
      (el.getAttribute('data-speech-languages') || '').split(' ').forEach(function (lang) {
        if (lang) body.append(voiceFor(lang) ? 'has' : 'missing', lang);
      });
      var answer = body.toString();
      if (answer === sent || !window.fetch) return;
      sent = answer;
      window.fetch(el.getAttribute('data-speech-report'), { method: 'POST', body: body, credentials: 'same-origin' }).catch(function () {});
    }
    var synth = window.speechSynthesis;
    if (synth && synth.addEventListener) synth.addEventListener('voiceschanged', send);
    if (synth && synth.getVoices && synth.getVoices().length) send();
    else setTimeout(send, 3000);
  }

  function start() {
    var report = doc.querySelector('[data-speech-report]');
    if (report) reportVoices(report);
    if (doc.querySelector('[data-speech-voices]')) {
      showVoices();
      if (window.speechSynthesis && window.speechSynthesis.addEventListener) window.speechSynthesis.addEventListener('voiceschanged', showVoices);
    }
    observer.observe(doc.body, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ['hidden'] });
    showCurtain();
    // The messages the page arrives with are said with it (announce): the same message swapped
    // in again by the page's own refresh is not news.
    Array.prototype.forEach.call(doc.querySelectorAll(LIVE), function (region) { heardBefore(region, spokenText(region)); });
    if (on()) announce();
  }
  if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', start);
  else start();
})();

// The client-rendered listings of tests/site_apps.py: hydrate, fetch items, fill prices by a
// second request, and the pattern's way of showing more (button, infinite scroll, virtual rows,
// a filter that applies itself, a custom sort control).
(function () {
  var A = window.__APP, C = A.classes, W = A.words, T = A.markup === "testid";
  var list = document.getElementById("list"), toolbar = document.getElementById("toolbar");
  var after = document.getElementById("after");
  var state = { offset: 0, total: 0, items: [], min: "", max: "", sort: "", loading: false };

  function attr(role) { return T ? 'data-testid="product-' + role + '"' : 'class="' + C[role] + '"'; }
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; }); }
  function query(extra) {
    var q = "pattern=" + A.pattern + "&lang=" + A.lang + "&delay=" + A.delay;
    if (state.min) q += "&min=" + encodeURIComponent(state.min);
    if (state.max) q += "&max=" + encodeURIComponent(state.max);
    if (state.sort) q += "&sort=" + state.sort;
    return q + (extra || "");
  }
  function get(path, extra) { return fetch(path + "?" + query(extra)).then(function (r) { return r.json(); }); }

  function card(item) {
    var wait = T ? '<span data-testid="price-skeleton" class="price-wait"></span>'
                 : '<span class="' + C.price_wait + ' price-wait"></span>';
    var inner = '<a ' + (T ? 'data-testid="product-name"' : 'class="' + C.name + '"') + ' href="' + item.url + '">' + esc(item.name) + '</a>' +
      '<div ' + (T ? 'data-testid="product-price"' : 'class="' + C.price + '"') + ' data-price-of="' + item.id + '">' + wait + '</div>';
    return '<div ' + (T ? 'data-testid="product-card"' : 'class="' + C.card + ' card"') + ' data-id="' + item.id + '">' + inner + '</div>';
  }
  function fillPrices(items) {
    if (!items.length) return Promise.resolve();
    return get("/app-api/prices", "&ids=" + items.map(function (i) { return i.id; }).join(",")).then(function (prices) {
      Object.keys(prices).forEach(function (id) {
        var slot = document.querySelector('[data-price-of="' + id + '"]');
        if (slot) slot.textContent = prices[id];
      });
    });
  }
  function count() {
    var shown = state.items.length, text;
    if (A.pattern === "render" || A.pattern === "filter" || A.pattern === "sort" || A.pattern === "virtual")
      text = W.total.replace("{n}", state.total);
    else text = W.count.replace("{a}", shown ? 1 : 0).replace("{b}", shown).replace("{n}", state.total);
    toolbar.innerHTML = '<p ' + attr("count") + '>' + esc(text) + '</p>' + sortControl();
    bindSort();
  }

  // --- sort: a button and a role=listbox, or (utility-class markup) a div dropdown without roles --
  function sortControl() {
    if (A.pattern !== "sort") return "";
    var label = { "": W.relevance, price_asc: W.asc, price_desc: W.desc }[state.sort];
    var opts = [["", W.relevance], ["price_asc", W.asc], ["price_desc", W.desc]];
    if (A.markup === "soup") {
      return '<div class="relative inline-block"><div class="cursor-pointer rounded border px-3 py-1" id="sort-toggle">' + esc(W.sort) + ': ' + esc(label) + '</div>' +
        '<div class="absolute z-10 hidden mt-1 rounded border bg-white" id="sort-menu">' +
        opts.map(function (o) { return '<div class="dd-item px-3 py-1 hover:bg-gray-100" data-value="' + o[0] + '">' + esc(o[1]) + '</div>'; }).join("") + '</div></div>';
    }
    return '<span id="sort-label">' + esc(W.sort) + '</span> <button type="button" id="sort-toggle" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="sort-label sort-toggle">' + esc(label) + '</button>' +
      '<ul role="listbox" id="sort-menu" hidden aria-labelledby="sort-label">' +
      opts.map(function (o) { return '<li role="option" data-value="' + o[0] + '" aria-selected="' + (o[0] === state.sort) + '">' + esc(o[1]) + '</li>'; }).join("") + '</ul>';
  }
  function bindSort() {
    var toggle = document.getElementById("sort-toggle"), menu = document.getElementById("sort-menu");
    if (!toggle) return;
    toggle.addEventListener("click", function () {
      var open = A.markup === "soup" ? menu.classList.toggle("hidden") === false : (menu.hidden = !menu.hidden, !menu.hidden);
      if (A.markup === "soup") menu.style.display = open ? "block" : "none";
      toggle.setAttribute("aria-expanded", String(open));
    });
    Array.prototype.forEach.call(menu.children, function (o) {
      o.addEventListener("click", function () { state.sort = o.getAttribute("data-value"); reload(); });
    });
  }

  // --- loading a chunk -----------------------------------------------------------------------
  function load(offset, limit) {
    state.loading = true;
    return get("/app-api/items", "&offset=" + offset + "&limit=" + limit).then(function (data) {
      state.total = data.total;
      state.items = state.items.concat(data.items);
      state.offset = offset + data.items.length;
      state.loading = false;
      return data.items;
    });
  }
  function appendCards(items) {
    list.insertAdjacentHTML("beforeend", items.map(card).join(""));
    return fillPrices(items);
  }
  function clearSkeletons() { list.innerHTML = ""; }

  function reload() {
    state.items = []; state.offset = 0;
    list.setAttribute("aria-busy", "true");
    return load(0, 100).then(function (items) {
      clearSkeletons(); count();
      list.removeAttribute("aria-busy");
      return appendCards(items);
    });
  }

  function moreButton() {
    if (state.offset >= state.total) { after.innerHTML = '<p>' + esc(W.end) + '</p>'; return; }
    after.innerHTML = '<button type="button" ' + attr("button") + ' id="more">' + esc(W.more) + '</button>';
    document.getElementById("more").addEventListener("click", function () {
      if (A.pattern === "short") return;  // broken: the page says more exist and never shows them
      after.innerHTML = '<p role="status">' + esc(W.loading) + '</p>';
      load(state.offset, A.pageSize).then(function (items) { count(); return appendCards(items); }).then(moreButton);
    });
  }

  function sentinel() {
    if (state.offset >= state.total) { after.innerHTML = '<p>' + esc(W.end) + '</p>'; return; }
    after.innerHTML = '<div id="sentinel" style="height:40px"></div>';
    var io = new IntersectionObserver(function (entries) {
      if (!entries[0].isIntersecting || state.loading) return;
      io.disconnect();
      after.innerHTML = '<div class="spinner" role="progressbar" style="height:40px">' + esc(W.loading) + '</div>';
      load(state.offset, A.pageSize).then(function (items) { count(); return appendCards(items); }).then(sentinel);
    });
    io.observe(document.getElementById("sentinel"));
  }

  // --- virtual: all rows fetched, only those in view rendered ------------------------------------
  function virtual() {
    var scroller = document.getElementById("scroller"), ROW = 48;
    list.style.height = state.items.length * ROW + "px";
    function paint() {
      var first = Math.max(0, Math.floor(scroller.scrollTop / ROW) - 2);
      var last = Math.min(state.items.length, Math.ceil((scroller.scrollTop + scroller.clientHeight) / ROW) + 2);
      var html = "";
      for (var i = first; i < last; i++) {
        var it = state.items[i];
        html += '<div ' + (T ? 'data-testid="product-row"' : 'class="' + C.card + ' row"') + ' style="top:' + i * ROW + 'px" data-id="' + it.id + '">' +
          '<a ' + (T ? 'data-testid="product-name"' : 'class="' + C.name + '"') + ' href="' + it.url + '">' + esc(it.name) + '</a>' +
          '<span ' + (T ? 'data-testid="product-price"' : 'class="' + C.price + '"') + '>' + esc(it.price) + '</span></div>';
      }
      list.innerHTML = html;
    }
    scroller.addEventListener("scroll", function () { requestAnimationFrame(paint); }, { passive: true });
    paint();
  }

  function start() {
    if (A.pattern === "virtual") {
      return load(0, 100).then(function (items) {
        return get("/app-api/prices", "&ids=" + items.map(function (i) { return i.id; }).join(",")).then(function (prices) {
          items.forEach(function (it) { it.price = prices[it.id]; });
          count(); virtual();
        });
      });
    }
    if (A.pattern === "render" || A.pattern === "filter" || A.pattern === "sort") {
      if (A.pattern === "filter") bindFilter();
      return reload();
    }
    return load(0, A.pageSize).then(function (items) {
      clearSkeletons(); count();
      return appendCards(items).then(A.pattern === "scroll" ? sentinel : moreButton);
    });
  }

  // --- a filter that applies itself: controlled inputs, a 400 ms debounce, no button -------------
  function bindFilter() {
    var timer = 0;
    function changed() {
      clearTimeout(timer);
      timer = setTimeout(function () {
        state.min = document.getElementById("f-min").value.trim();
        state.max = document.getElementById("f-max").value.trim();
        reload();
      }, 400);
    }
    document.getElementById("f-min").addEventListener("input", changed);
    document.getElementById("f-max").addEventListener("input", changed);
  }

  // Hydration: the framework boots a little after the document is there.
  setTimeout(start, A.hydrate);
})();

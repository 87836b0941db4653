// Sklep Demo: "Pokaż więcej" (/nowosci) and infinite scroll (/inspiracje), both fed by /api/produkty.
(function () {
  "use strict";
  var list = document.getElementById("products");
  if (!list) return;
  var loading = false;

  function esc(text) {
    var div = document.createElement("div");
    div.textContent = text;
    return div.innerHTML;
  }

  function card(item) {
    var old = item.old_price_text
      ? ' <del class="price price--old" aria-label="Cena przed obniżką">' + esc(item.old_price_text) + "</del>" : "";
    var li = document.createElement("li");
    li.className = "product-list__item";
    li.innerHTML = '<article class="product-card" data-product-id="' + esc(item.id) + '">' +
      '<h3 class="product-card__name"><a href="' + esc(item.url) + '">' + esc(item.name) + "</a></h3>" +
      '<p class="product-card__prices"><span class="price price--current">' + esc(item.price_text) + "</span>" + old + "</p>" +
      '<button type="button" class="product-card__cart">Do koszyka</button></article>';
    return li;
  }

  function finished() {
    var button = document.getElementById("load-more");
    if (button) button.remove();
    var status = document.getElementById("feed-status");
    if (status) status.textContent = "To już wszystko";
  }

  // Fetches the next 8 products and appends them; resolves when the cards are in the page.
  function loadMore() {
    var offset = list.dataset.nextOffset;
    if (loading || offset === "") return Promise.resolve();
    loading = true;
    var status = document.getElementById("feed-status");
    if (status) status.textContent = "Ładowanie…";
    return fetch("/api/produkty?offset=" + offset + "&limit=8&sort=" + list.dataset.sort)
      .then(function (r) { return r.json(); })
      .then(function (doc) {
        doc.items.forEach(function (item) { list.appendChild(card(item)); });
        list.dataset.nextOffset = doc.next_offset === null ? "" : String(doc.next_offset);
        if (doc.next_offset === null) finished();
        else if (status) status.textContent = "Przewiń, aby zobaczyć więcej";
      })
      .finally(function () { loading = false; });
  }

  function nearBottom() {
    return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 300;
  }

  if (list.dataset.kind === "more") {
    document.getElementById("load-more").addEventListener("click", loadMore);
  } else {
    window.addEventListener("scroll", function () { if (nearBottom()) loadMore(); }, { passive: true });
  }
})();

// The tablet's entry pages off the network: each round's entry page of a table the tablet has
// opened is kept (fetched again whenever the network answers), and answered from its copy when
// the network does not, marked data-offline-copy on <html> so that entry.js says so and gives it
// a fresh Idempotency-Key. The static files those pages load are kept the same way. Every other
// request goes to the network untouched. Signing out empties the copies.
"use strict";

var KEPT = "rh-entry-pages-v1";
var ENTRY_PAGE = /^\/t\/[^/]+\/enter\/\d+\/\d+\/$/;
var STATIC = "{{ static_prefix|escapejs }}";
var SIGN_OUT = "{{ sign_out|escapejs }}";

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

function kept(response) {
  // A page for someone signed in only: a redirect (to sign in) or an error is not kept.
  return response.ok && response.type === "basic" && !response.redirected;
}

function fetchAndKeep(url) {
  return fetch(url, {credentials: "same-origin"}).then(function (response) {
    if (kept(response)) {
      var copy = response.clone();
      return caches.open(KEPT).then(function (cache) { return cache.put(url, copy); })
        .then(function () { return response; });
    }
    return response;
  });
}

// The copy, marked as one; its length and encoding are the new body's.
function markedCopy(copy) {
  return copy.text().then(function (html) {
    var headers = new Headers(copy.headers);
    headers.delete("Content-Length");
    headers.delete("Content-Encoding");
    return new Response(html.replace("<html", "<html data-offline-copy"), {
      status: copy.status, statusText: copy.statusText, headers: headers
    });
  });
}

function fromNetworkElseCopy(url, isPage) {
  return fetchAndKeep(url).catch(function (offline) {
    return caches.open(KEPT).then(function (cache) { return cache.match(url); }).then(function (copy) {
      if (!copy) throw offline;
      return isPage ? markedCopy(copy) : copy;
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && url.pathname === SIGN_OUT) {
    event.waitUntil(caches.delete(KEPT));
    return;
  }
  if (request.method !== "GET" || url.search) return;
  if (ENTRY_PAGE.test(url.pathname)) event.respondWith(fromNetworkElseCopy(url.href, true));
  else if (url.pathname.indexOf(STATIC) === 0) event.respondWith(fromNetworkElseCopy(url.href, false));
});

// An entry page asks for the other rounds of its table to be kept before they are opened.
self.addEventListener("message", function (event) {
  var urls = (event.data && event.data.keep) || [];
  event.waitUntil(Promise.all(urls.filter(function (path) {
    return ENTRY_PAGE.test(new URL(path, self.location.origin).pathname);
  }).map(function (path) {
    return fetchAndKeep(new URL(path, self.location.origin).href).catch(function () {});
  })));
});

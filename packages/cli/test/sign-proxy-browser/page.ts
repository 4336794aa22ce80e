/**
 * The page of the sign-proxy's browser test: what a page of another site (or of another port of
 * the same machine) can make a browser send to a sign-proxy it knows the port of. Each request is
 * one a browser sends without asking the proxy first (no preflight): an `<img>` (a GET with no
 * `Origin`), a `<form>`-like POST and a GET by `fetch` in `no-cors` mode. The proxy's URL is the
 * page's `?proxy=`; `window.done` is set once every request has settled.
 */
declare global {
  interface Window {
    done?: boolean;
  }
}

const proxy = new URL(location.href).searchParams.get('proxy') ?? '';
const users = `${proxy}/api/v1/external/users`;

const image = new Promise<void>((settled) => {
  const img = new Image();
  img.onload = () => settled();
  img.onerror = () => settled();
  img.src = `${users}/from-an-img?userId=1`;
});
const post = fetch(users, {
  method: 'POST',
  mode: 'no-cors',
  headers: { 'content-type': 'text/plain' },
  body: '{"email":"victim@example.com"}',
}).catch(() => undefined);
const get = fetch(`${users}/from-fetch`, { mode: 'no-cors' }).catch(() => undefined);

Promise.all([image, post, get]).then(() => {
  window.done = true;
});

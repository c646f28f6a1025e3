// The shop the example suite tests: a few static pages on loopback, so the run needs no internet.
// Started by the `webServer` entry of playwright.config.ts.
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 5179);
const products = [
  { id: 'trail-shoes', name: 'Trail shoes', price: 89 },
  { id: 'rain-jacket', name: 'Rain jacket', price: 129 },
  { id: 'wool-socks', name: 'Wool socks', price: 15 },
  { id: 'head-lamp', name: 'Head lamp', price: 35 },
];

const layout = (title, body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} · Trailhead</title>
<style>body{font-family:sans-serif;margin:2rem}li{margin:.4rem 0}#cart{float:right}</style>
<script>
  const cart = () => JSON.parse(localStorage.getItem('cart') || '[]');
  const render = () => { document.querySelector('[data-testid=cart-count]').textContent = cart().length; };
  document.addEventListener('click', (e) => {
    const id = e.target.closest('[data-add]')?.dataset.add;
    if (id) { localStorage.setItem('cart', JSON.stringify([...cart(), id])); render(); }
  });
  document.addEventListener('DOMContentLoaded', render);
</script></head>
<body><a id="cart" href="/cart">Cart (<span data-testid="cart-count">0</span>)</a>
<nav><a href="/">Home</a> · <a href="/products">Products</a> · <a href="/login">Sign in</a></nav>
${body}
</body></html>`;

const pages = {
  '/': () => layout('Home', '<h1>Welcome to Trailhead</h1><p>Gear for the long way round.</p>'),
  '/products': () =>
    layout(
      'Products',
      `<h1>Products</h1><input type="search" placeholder="Search products" aria-label="Search products"
        oninput="for (const li of document.querySelectorAll('li')) li.hidden = !li.dataset.name.toLowerCase().includes(this.value.toLowerCase())">
      <ul>${products
        .map(
          (p) =>
            `<li data-name="${p.name}"><span class="name">${p.name}</span> — $<span class="price">${p.price}</span> <button data-add="${p.id}">Add ${p.name} to cart</button></li>`,
        )
        .join('')}</ul>`,
    ),
  '/cart': () =>
    layout(
      'Cart',
      `<h1>Your cart</h1><ul id="items"></ul><p>Total: $<span data-testid="total">0</span></p>
      <script>
        const all = ${JSON.stringify(products)};
        const items = cart().map((id) => all.find((p) => p.id === id)).filter(Boolean);
        document.getElementById('items').innerHTML = items.map((p) => '<li>' + p.name + '</li>').join('');
        document.querySelector('[data-testid=total]').textContent = items.reduce((s, p) => s + p.price, 0);
      </script>`,
    ),
  '/login': () =>
    layout(
      'Sign in',
      `<h1>Sign in</h1><form method="post" action="/login">
        <label>Email <input name="email" type="email" required></label>
        <button>Sign in</button></form>`,
    ),
  '/account': (req) => {
    const email = /(?:^|; )user=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    return email
      ? layout('Account', `<h1>Hello, ${decodeURIComponent(email)}</h1>`)
      : layout('Account', '<h1>Please sign in</h1>');
  },
};

createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method === 'POST' && path === '/login') {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const email = new URLSearchParams(body).get('email') ?? '';
      res
        .writeHead(303, {
          location: '/account',
          'set-cookie': `user=${encodeURIComponent(email)}; Path=/; HttpOnly`,
        })
        .end();
    });
    return;
  }
  const page = pages[path];
  if (!page) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(req));
}).listen(port, '127.0.0.1', () => console.log(`shop on http://127.0.0.1:${port}`));

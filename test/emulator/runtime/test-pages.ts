/** A loopback server with the pages the runtime tests drive (the machine has no internet). */
import { startLoopbackSite } from '../../helpers/loopback-site.js';

const PAGES: Record<string, string> = {
  '/': '<!doctype html><title>Local test page</title><h1>Hello from 127.0.0.1</h1>',
  '/form': `<!doctype html><title>Form</title>
    <input id="name" value="Ada ">
    <button id="go" onclick="document.querySelector('#out').textContent = 'clicked ' + document.querySelector('#name').value">Go</button>
    <p id="out">not clicked</p>
    <div style="height: 5000px"></div>`,
  '/animated': `<!doctype html><title>Animated</title>
    <div id="box" style="width:100px;height:100px;background:red"></div>
    <script>let n = 0; setInterval(() => { box.style.marginLeft = (n++ % 200) + 'px'; }, 50);</script>`,
  // Loads normally, then hangs its renderer: what a stuck page looks like to page actions.
  '/hang': `<!doctype html><title>Hang</title><script>
    addEventListener('load', () => setTimeout(() => { while (true) {} }, 200));
  </script>`,
};

export interface TestPages {
  origin: string;
  close(): Promise<void>;
}

export function startTestPages(): Promise<TestPages> {
  return startLoopbackSite(PAGES, { contentType: 'text/html' });
}

// Webview UI entry (bundled to dist/webview.js as an IIFE). The records table grows here.
const root = document.getElementById('root');
if (root) root.textContent = 'Loading records…';

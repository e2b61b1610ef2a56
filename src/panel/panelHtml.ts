/**
 * The records panel's page: strict CSP with a fresh nonce, the bundled script and styles, and a
 * loading state in the HTML itself so the panel is never blank before its script runs.
 */
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

export function panelHtml(webview: vscode.Webview, extensionUri: vscode.Uri, loadingText: string, init: object): string {
  const nonce = randomBytes(18).toString('base64');
  const dist = vscode.Uri.joinPath(extensionUri, 'dist');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js'));
  // Chart.js for the trend, loaded by the page when it first draws it (media/webview/trendChart.ts).
  const chart = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'chart.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css'));
  const codicons = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicons', 'codicon.css'));
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource}`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  // The webview's strings come from the same bundle as the host's; without one (English, or a
  // language nobody has translated) the page is English and says so.
  const bundle = vscode.l10n.bundle;
  const lang = bundle ? vscode.env.language : 'en';
  return `<!DOCTYPE html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<script nonce="${nonce}">window.__dmarcEarly=[];addEventListener('message',window.__dmarcEarlyListener=function(e){window.__dmarcEarly.push(e.data)});</script>
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${codicons}">
<link rel="stylesheet" href="${style}">
<title>${escapeHtml(vscode.l10n.t('DMARC records'))}</title>
</head>
<body data-l10n="${escapeHtml(JSON.stringify(bundle ?? {}))}" data-init="${escapeHtml(JSON.stringify(init))}" data-chart="${escapeHtml(chart.toString())}">
<div id="root"><div class="boot" role="status" data-testid="boot-loading"><span class="codicon codicon-loading codicon-modifier-spin" aria-hidden="true"></span><span>${escapeHtml(loadingText)}</span></div></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}

/** Text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

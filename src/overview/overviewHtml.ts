/**
 * The Overview's page, built as the records panel's is (src/panel/panelHtml.ts): a strict CSP with
 * a fresh nonce, no inline style, the bundled script and styles, the webview's strings, and the
 * rows known when it opens (`init`) in a data attribute, so rows already cached show at once. A
 * one-line script keeps the messages that arrive before the bundle runs (media/webview/boot.ts).
 */
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { escapeHtml } from '../panel/panelHtml';
import type { OverviewInit } from '../shared/overviewProtocol';

export function overviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, init: OverviewInit): string {
  const nonce = randomBytes(18).toString('base64');
  const dist = vscode.Uri.joinPath(extensionUri, 'dist');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'overview.js'));
  // The records panel's styles (base, buttons, toolbar, controls, badges, states), then the Overview's own.
  const shared = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'overview.css'));
  const codicons = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicons', 'codicon.css'));
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource}`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
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
<link rel="stylesheet" href="${shared}">
<link rel="stylesheet" href="${style}">
<title>${escapeHtml(vscode.l10n.t('DMARC Overview'))}</title>
</head>
<body data-l10n="${escapeHtml(JSON.stringify(bundle ?? {}))}" data-init="${escapeHtml(JSON.stringify(init))}">
<div id="root"><div class="boot" role="status"><span class="codicon codicon-loading codicon-modifier-spin" aria-hidden="true"></span><span>${escapeHtml(vscode.l10n.t('Loading the overview…'))}</span></div></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}

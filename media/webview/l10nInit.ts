/**
 * Loads the translations the host put on `<body data-l10n>` (VS Code's bundle for the display
 * language, `{}` in English) into `@vscode/l10n`, whose `l10n.t` every webview string goes
 * through and which falls back to the English text. Imported first by main.ts, so the modules
 * that build labels when they load (format.ts, groups.ts…) see the bundle.
 */
import * as l10n from '@vscode/l10n';

function readBundle(): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(document.body?.dataset.l10n ?? '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

l10n.config({ contents: readBundle() });

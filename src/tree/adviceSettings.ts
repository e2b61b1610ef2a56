/**
 * The advice rules' thresholds from the settings (`dmarc.advice.*`, percents 0–100 in the
 * settings, fractions in AdviceThresholds). A value that is not a finite number falls back to
 * its default; one outside 0–100 is clamped. The tree reads them; the panel can too.
 */
import * as vscode from 'vscode';
import { DEFAULT_THRESHOLDS, type AdviceThresholds } from '../advice/vocabulary';

export const ADVICE_SECTION = 'dmarc.advice';

/** Setting key (under `dmarc.advice`) of each threshold. */
export const ADVICE_SETTINGS: Readonly<Record<keyof AdviceThresholds, string>> = {
  compliant: 'compliantShare',
  quarantine: 'quarantineShare',
  reject: 'rejectShare',
};

/** A percent setting's value as a fraction: clamped to 0–100, the default's when not a number. */
export function shareOf(value: unknown, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(100, Math.max(0, value)) / 100;
}

/** The thresholds the settings give now. */
export function adviceThresholds(config: Pick<vscode.WorkspaceConfiguration, 'get'> = vscode.workspace.getConfiguration(ADVICE_SECTION)): AdviceThresholds {
  return {
    compliant: shareOf(config.get(ADVICE_SETTINGS.compliant), DEFAULT_THRESHOLDS.compliant),
    quarantine: shareOf(config.get(ADVICE_SETTINGS.quarantine), DEFAULT_THRESHOLDS.quarantine),
    reject: shareOf(config.get(ADVICE_SETTINGS.reject), DEFAULT_THRESHOLDS.reject),
  };
}

/** Calls `listener` with the new thresholds whenever a `dmarc.advice` setting changes. */
export function onAdviceThresholdsChange(listener: (t: AdviceThresholds) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(ADVICE_SECTION)) listener(adviceThresholds());
  });
}

/** Every command id in one place; package.json `contributes.commands` lists the same ids. */
export const Commands = {
  addAccount: 'dmarc.addAccount',
  updateApiKey: 'dmarc.updateApiKey',
  renameAccount: 'dmarc.renameAccount',
  removeAccount: 'dmarc.removeAccount',
  addOrganization: 'dmarc.addOrganization',
  renameOrganization: 'dmarc.renameOrganization',
  removeOrganization: 'dmarc.removeOrganization',
  copyOrganizationId: 'dmarc.copyOrganizationId',
  testConnection: 'dmarc.testConnection',
  refresh: 'dmarc.refresh',
  refreshItem: 'dmarc.refreshItem',
  retry: 'dmarc.retry',
  openRecords: 'dmarc.openRecords',
  copyIpAddress: 'dmarc.copyIpAddress',
  fetchRange: 'dmarc.fetchRange',
  exportSelectedJson: 'dmarc.exportSelectedJson',
  exportSelectedCsv: 'dmarc.exportSelectedCsv',
  openReportFiles: 'dmarc.openReportFiles',
  openInExplorer: 'dmarc.openInDmarcExplorer',
  removeReportLocation: 'dmarc.removeReportLocation',
  reloadReportFiles: 'dmarc.reloadReportFiles',
  clearDiskCache: 'dmarc.clearDiskCache',
  watchNow: 'dmarc.watchNow',
  openOverview: 'dmarc.openOverview',
} as const;

/** Context keys set by the extension, read by `when` clauses in package.json. */
export const ContextKeys = {
  hasAccounts: 'dmarc.hasAccounts',
  hasOrganizations: 'dmarc.hasOrganizations',
  /** Exactly one account: the tree hides the account level, so its commands sit on organizations too. */
  singleAccount: 'dmarc.singleAccount',
  /** Set when `npm run demo` started the extension against its local API server. */
  demo: 'dmarc.demo',
  /** Report files or folders were opened: the tree has a Report Files section. */
  hasReportFiles: 'dmarc.hasReportFiles',
} as const;

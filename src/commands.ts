/** Every command id in one place; package.json `contributes.commands` lists the same ids. */
export const Commands = {
  addAccount: 'dmarc.addAccount',
  refresh: 'dmarc.refresh',
} as const;

'use strict';
/**
 * Test-only n8n node (test/e2e/storeModel.test.ts): makes the store calls its input items say, in
 * order, one at a time, with n8n's own helpers, as the Payouts Transfer node's record does
 * (scope `node`, mode `entries`), and outputs what each answered.
 */
class StoreProbe {
	constructor() {
		this.description = {
			displayName: 'Store Probe',
			name: 'storeProbe',
			group: ['transform'],
			version: 1,
			description: "Calls n8n's processed-data store as its input items say",
			defaults: { name: 'Store Probe' },
			inputs: ['main'],
			outputs: ['main'],
			properties: [],
		};
	}

	async execute() {
		const output = [];
		for (const item of this.getInputData()) {
			const { kind, values, maxEntries } = item.json;
			const options = { mode: 'entries', maxEntries };
			if (kind === 'check') {
				const answer = await this.helpers.checkProcessedAndRecord(values, 'node', options);
				output.push({ json: { kind, processed: answer.processed.map(String) } });
			} else if (kind === 'remove') {
				await this.helpers.removeProcessed(values, 'node', options);
				output.push({ json: { kind } });
			} else {
				output.push({
					json: { kind, count: await this.helpers.getProcessedDataCount('node', options) },
				});
			}
		}
		return [output];
	}
}

module.exports = { StoreProbe };

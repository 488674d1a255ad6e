/**
 * The settings a user can give a Payouts Transfer node, generated from the node's own description
 * (the Options collection of the operation, whatever it holds) and from the node settings n8n
 * offers every node (Retry On Fail and its tries and wait, On Error, Always Output Data, Execute
 * Once): an option added to the node enters the simulator's world by itself. A value is made from
 * the option's type and bounds; only a few options have a role a type cannot tell (the user maps a
 * column to it, or turns it on for one run), named in `ROLES`. An option of a type the generator
 * cannot fill stops the simulator, naming it: teach it here.
 */
import fc from 'fast-check';
import type { INodeProperties, INodePropertyCollection, INodeTypeDescription } from 'n8n-workflow';

import type { Operation } from './service';

/** n8n's own settings of a node (the editor's Settings tab) that change how n8n runs it. */
export interface NodeSettings {
	retryOnFail: boolean;
	maxTries: number;
	waitBetweenTries: number;
	onError: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	alwaysOutputData: boolean;
	executeOnce: boolean;
}

/** What the user set on one Payouts Transfer node. */
export interface NodeSetup {
	operation: Operation;
	/** The Options collection as saved (mapped options as expressions). */
	options: Record<string, unknown>;
	settings: NodeSettings;
}

/**
 * Options whose use a type does not tell: `perRun` ones the user turns on for one run (Dry Run),
 * `mapped` ones the user maps to a column of the rows (Settle With Dashboard Status).
 */
export const ROLES: Record<string, 'perRun' | 'mapped' | 'never'> = {
	dryRun: 'perRun',
	dashboardStatus: 'mapped',
	// The node refuses to run as an AI agent's tool unless allowed; the simulator never runs it as one.
	allowAgentUse: 'never',
};

/** Where an option has no upper bound, the largest value the simulator tries. */
const OPEN_BOUND: Record<string, number> = { requestsPerSecond: 40, timeout: 20000 };

/** The operation's Options collection, as the node describes it. */
export function optionsOf(
	description: INodeTypeDescription,
	operation: Operation,
): INodeProperties[] {
	const collection = description.properties.find(
		(property) =>
			property.name === 'options' && property.displayOptions?.show?.operation?.includes(operation),
	);
	if (!collection) throw new Error(`The node describes no Options for ${operation}`);
	return (collection.options ?? []) as INodeProperties[];
}

/** A value for one option from its type and bounds. */
function valueOf(option: INodeProperties): fc.Arbitrary<unknown> {
	const bounds = option.typeOptions ?? {};
	switch (option.type) {
		case 'boolean':
			return fc.boolean();
		case 'number': {
			const min = Number(bounds.minValue ?? 0);
			const max = Number(bounds.maxValue ?? OPEN_BOUND[option.name] ?? min + 100);
			const whole = (bounds.numberPrecision ?? 0) === 0;
			// The bounds themselves, and the default, are what users most often leave or type.
			return fc.oneof(
				fc.constantFrom(min, max, Number(option.default)),
				whole
					? fc.integer({ min, max })
					: fc.double({ min, max, noNaN: true }).map((value) => Math.round(value * 100) / 100),
			);
		}
		case 'options':
			return fc.constantFrom(
				...(option.options ?? []).map((choice) => (choice as { value: unknown }).value),
			);
		case 'string':
			// A text option the user types: its default, or an impact level the service names.
			return fc.constantFrom(option.default, 'LOW', 'LOW,HIGH');
		case 'fixedCollection': {
			const groups = (option.options ?? []) as INodePropertyCollection[];
			return fc.record(
				Object.fromEntries(
					groups.map((group) => [
						group.name,
						fc.record(
							Object.fromEntries(group.values.map((value) => [value.name, valueOf(value)])),
							{ requiredKeys: [] },
						),
					]),
				),
				{ requiredKeys: [] },
			);
		}
		default:
			throw new Error(
				`The simulator cannot make a value for option '${option.name}' of type '${option.type}': teach test/simulator/settings.ts`,
			);
	}
}

/**
 * Whether n8n shows an option, given the collection's values: n8n reads a collection option's
 * display rule against the collection's own values, a value not added being its default.
 */
function shown(
	option: INodeProperties,
	values: Record<string, unknown>,
	all: INodeProperties[],
): boolean {
	const valueOf = (name: string) =>
		name in values ? values[name] : all.find((other) => other.name === name)?.default;
	const { show, hide } = option.displayOptions ?? {};
	if (
		show &&
		!Object.entries(show).every(([name, allowed]) =>
			(allowed ?? []).includes(valueOf(name) as never),
		)
	)
		return false;
	if (
		hide &&
		Object.entries(hide).some(([name, hidden]) => (hidden ?? []).includes(valueOf(name) as never))
	)
		return false;
	return true;
}

/** The Options a user may add to the node: each option added or not, with a value of its type; hidden ones dropped as the editor drops them. */
export function optionsArbitrary(
	description: INodeTypeDescription,
	operation: Operation,
): fc.Arbitrary<Record<string, unknown>> {
	const options = optionsOf(description, operation).filter(
		(option) => ROLES[option.name] === undefined,
	);
	const arbitrary = fc.record(
		Object.fromEntries(options.map((option) => [option.name, valueOf(option)])),
		{ requiredKeys: [] },
	);
	return arbitrary.map((values) => {
		const kept: Record<string, unknown> = {};
		for (const option of options)
			if (option.name in values && shown(option, values, options))
				kept[option.name] = values[option.name];
		// Settle With Dashboard Status is mapped to the rows' column whenever the node has it.
		if (optionsOf(description, operation).some((option) => option.name === 'dashboardStatus'))
			kept.dashboardStatus = '={{ $json.dashboardStatus }}';
		return kept;
	});
}

export const nodeSettingsArbitrary: fc.Arbitrary<NodeSettings> = fc.record({
	retryOnFail: fc.boolean(),
	maxTries: fc.integer({ min: 2, max: 5 }),
	waitBetweenTries: fc.constantFrom(0, 10, 1000, 5000),
	onError: fc.constantFrom(
		'stopWorkflow' as const,
		'continueRegularOutput' as const,
		'continueErrorOutput' as const,
	),
	alwaysOutputData: fc.boolean(),
	executeOnce: fc.constantFrom(false, false, false, true),
});

export function setupArbitrary(
	description: INodeTypeDescription,
	operation: Operation,
): fc.Arbitrary<NodeSetup> {
	return fc.record({
		operation: fc.constant(operation),
		options: optionsArbitrary(description, operation),
		settings: nodeSettingsArbitrary,
	});
}

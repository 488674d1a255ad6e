/** Shorter values are no secret we could find without blotting out ordinary words and numbers. */
const MIN_SECRET_LENGTH = 4;

/**
 * Replaces every secret in a text, in every form the node may have sent it or a service may echo
 * it: as given, trimmed (what the rules send), JSON-escaped and URL-encoded. Redact first, shorten
 * after: a shortened text could keep the start of a secret.
 */
export function redactor(secrets: unknown[]): (text: string) => string {
	const forms = new Set<string>();
	for (const secret of secrets) {
		if (typeof secret !== 'string') continue;
		for (const form of [secret, secret.trim()]) {
			for (const encoded of [form, JSON.stringify(form).slice(1, -1), encodeURIComponent(form)]) {
				if (encoded.length >= MIN_SECRET_LENGTH) forms.add(encoded);
			}
		}
	}
	// Longest first, so a secret that contains another is replaced whole.
	const ordered = [...forms].sort((a, b) => b.length - a.length);
	return (text) => ordered.reduce((result, form) => result.split(form).join('***'), text);
}

package sdchaos.eurekaclient;

import java.util.Collection;

/** A tiny JSON writer for the program's output lines (strings, numbers, booleans, string lists). */
final class Json {
	private final StringBuilder sb = new StringBuilder("{");

	/** Adds a string field. */
	Json str(String key, String v) {
		key(key);
		quote(v);
		return this;
	}

	/** Adds a number field. */
	Json num(String key, long v) {
		key(key);
		sb.append(v);
		return this;
	}

	/** Adds a boolean field. */
	Json bool(String key, boolean v) {
		key(key);
		sb.append(v);
		return this;
	}

	/** Adds a list of strings. */
	Json strs(String key, Collection<String> vs) {
		key(key);
		sb.append('[');
		int i = 0;
		for (String v : vs) {
			if (i++ > 0) {
				sb.append(',');
			}
			quote(v);
		}
		sb.append(']');
		return this;
	}

	/** Adds a field whose value is already JSON. */
	Json raw(String key, String json) {
		key(key);
		sb.append(json);
		return this;
	}

	/** Returns the object. */
	String done() {
		return sb.append('}').toString();
	}

	private void key(String k) {
		if (sb.length() > 1) {
			sb.append(',');
		}
		quote(k);
		sb.append(':');
	}

	private void quote(String s) {
		sb.append('"');
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);
			if (c == '"' || c == '\\') {
				sb.append('\\').append(c);
			}
			else if (c < 0x20) {
				sb.append(String.format("\\u%04x", (int) c));
			}
			else {
				sb.append(c);
			}
		}
		sb.append('"');
	}

	/** Prints one line on stdout, whole (lines of concurrent tasks never interleave). */
	static void print(String line) {
		synchronized (System.out) {
			System.out.println(line);
			System.out.flush();
		}
	}
}

/*
 * Copyright 2026 the advisory-lock authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package io.github.advisorylock.core.transaction;

import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * Reads the server's {@code transaction_timeout} as a lock session's opening statements
 * found it, and warns, once per namespace, that it would end the lock.
 *
 * @author advisory-lock authors
 */
public final class TransactionTimeouts {

	/** How PostgreSQL shows a time setting: a number and a unit. */
	private static final Pattern TIME_SETTING = Pattern.compile("(\\d+)(us|ms|s|min|h|d)");

	private final Log logger;

	/** Namespaces warned already: once each, not at every run of a job. */
	private final Set<String> warned = ConcurrentHashMap.newKeySet();

	/** Create the reader. */
	public TransactionTimeouts(Log logger) {
		this.logger = logger;
	}

	/**
	 * Read {@code transaction_timeout} as PostgreSQL shows it ({@code NULL} before 17,
	 * {@code 0} when off, {@code 90s}), warning once per namespace that it ends the lock.
	 * @param namespace the namespace of the lock
	 * @param setting the setting, or {@code null}
	 * @return the timeout, or {@code null} when it does not apply
	 */
	public @Nullable Duration read(String namespace, @Nullable String setting) {
		if (setting == null || "0".equals(setting)) {
			return null;
		}
		if (this.warned.add(namespace)) {
			this.logger.warn("Invocation-scoped advisory lock '" + namespace + "' runs with transaction_timeout = "
					+ setting + ": PostgreSQL ends its transaction, and so the lock, after that time, which is then "
					+ "reported as lost. Set transaction_timeout to 0 for the lock's role or database (said once "
					+ "per namespace)");
		}
		Matcher matcher = TIME_SETTING.matcher(setting.trim().toLowerCase(Locale.ROOT));
		if (!matcher.matches()) {
			return null;
		}
		long amount = Long.parseLong(matcher.group(1));
		return switch (matcher.group(2)) {
			case "us" -> Duration.ofNanos(amount * 1000);
			case "ms" -> Duration.ofMillis(amount);
			case "s" -> Duration.ofSeconds(amount);
			case "min" -> Duration.ofMinutes(amount);
			case "h" -> Duration.ofHours(amount);
			default -> Duration.ofDays(amount);
		};
	}

}

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

package io.github.advisorylock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A session that held an advisory lock another call could not acquire, as PostgreSQL's
 * {@code pg_locks} and {@code pg_stat_activity} described it a moment after the call
 * failed.
 *
 * <p>
 * The activity columns are {@code null} when PostgreSQL hides them: a role sees the state
 * and wait event of other roles' sessions only with {@code pg_read_all_stats}.
 *
 * @param pid the backend process id of the holding session
 * @param key the 64-bit key it holds
 * @param mode {@code ExclusiveLock} or {@code ShareLock}
 * @param applicationName the session's {@code application_name}, or {@code null}
 * @param state the session's state, such as {@code active} or
 * {@code idle in transaction}, or {@code null}
 * @param transactionAge how long the holder's transaction has been open, or {@code null}
 * @param waitEventType the type of event the holder waits for, such as {@code Client} or
 * {@code Lock}, or {@code null} when it waits for nothing
 * @param waitEvent the event the holder waits for, such as {@code ClientRead}, or
 * {@code null}
 * @author advisory-lock authors
 * @since 0.1.0
 * @see LockBusyException#getHolders()
 */
public record LockHolderInfo(int pid, long key, String mode, @Nullable String applicationName, @Nullable String state,
		@Nullable Duration transactionAge, @Nullable String waitEventType, @Nullable String waitEvent) {

	/**
	 * Describe the holder in one line, for messages and logs.
	 * @return for example
	 * {@code pid 4711 (application 'billing', idle in transaction, transaction open 3.2s,
	 * waiting for Client:ClientRead)}
	 */
	public String describe() {
		StringBuilder text = new StringBuilder("pid ").append(this.pid).append(" (");
		text.append("application '").append((this.applicationName != null) ? this.applicationName : "?").append("'");
		text.append(", ").append((this.state != null) ? this.state : "state hidden");
		if (this.transactionAge != null) {
			text.append(", transaction open ").append(seconds(this.transactionAge));
		}
		if (this.waitEventType != null) {
			text.append(", waiting for ").append(this.waitEventType).append(':').append(this.waitEvent);
		}
		return text.append(')').toString();
	}

	private static String seconds(Duration duration) {
		long tenths = duration.toMillis() / 100;
		return (tenths / 10) + "." + (tenths % 10) + "s";
	}

}

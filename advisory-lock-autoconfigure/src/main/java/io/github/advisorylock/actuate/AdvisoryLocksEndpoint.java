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

package io.github.advisorylock.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.advisorylock.pglocks.AdvisoryLockInspector;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.util.Assert;

/**
 * {@link Endpoint @Endpoint} {@code advisorylocks}: every advisory lock of the current
 * database, held and awaited, with the session behind it, and the {@code namespace:value}
 * of each key this application derived recently.
 *
 * <p>
 * {@code /advisorylocks} shows the database of the default (primary) {@code DataSource},
 * {@code /advisorylocks/{dataSource}} that of the bean of that name; without a default,
 * the former is a bad request naming the choices. A routing {@code DataSource} has no one
 * database and is never asked for a connection: the endpoint reads each target the router
 * has resolved and answers {@code "targets"} by lookup key (a default target that is none
 * of them as {@code "(default)"}), a target it cannot read with an {@code "error"}.
 *
 * <p>
 * Reads run one at a time, outside the application's pool and never on the connection a
 * busy lock's diagnosis needs (see {@link AdvisoryLockInspector}); one that finds none
 * free in time throws a
 * {@link org.springframework.dao.TransientDataAccessResourceException}, which
 * {@link AdvisoryLocksEndpointWebExtension} answers over HTTP with {@code 503}.
 *
 * <p>
 * Labels are key values, and query text (with
 * {@code advisory-lock.endpoint.include-query}) may hold personal data: expose the
 * endpoint to operators only.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@Endpoint(id = "advisorylocks")
public class AdvisoryLocksEndpoint {

	private static final String DEFAULT_DATA_SOURCE_NAME = "dataSource";

	private final Map<String, AdvisoryLockInspector> inspectors;

	private final @Nullable String defaultDataSource;

	private final @Nullable KeyLabels labels;

	/**
	 * Create an endpoint for an application with one {@code DataSource}.
	 * @param inspector reads the locks
	 * @param labels the recently derived keys, or {@code null} to show no labels
	 */
	public AdvisoryLocksEndpoint(AdvisoryLockInspector inspector, @Nullable KeyLabels labels) {
		this(Map.of(DEFAULT_DATA_SOURCE_NAME, nonNull(inspector)), DEFAULT_DATA_SOURCE_NAME, labels);
	}

	/**
	 * Create an endpoint for an application with several {@code DataSource}s.
	 * @param inspectors read the locks of each {@code DataSource}, by bean name; at least
	 * one
	 * @param defaultDataSource the name of the one {@code /advisorylocks} shows, or
	 * {@code null} for none
	 * @param labels the recently derived keys, or {@code null} to show no labels
	 */
	public AdvisoryLocksEndpoint(Map<String, AdvisoryLockInspector> inspectors, @Nullable String defaultDataSource,
			@Nullable KeyLabels labels) {
		Assert.notEmpty(inspectors, "At least one AdvisoryLockInspector is required");
		Assert.noNullElements(inspectors.values(), "AdvisoryLockInspectors must not be null");
		Assert.isTrue(defaultDataSource == null || inspectors.containsKey(defaultDataSource),
				() -> "The default DataSource '" + defaultDataSource + "' is none of " + inspectors.keySet());
		this.inspectors = Collections.unmodifiableMap(new LinkedHashMap<>(inspectors));
		this.defaultDataSource = defaultDataSource;
		this.labels = labels;
	}

	private static AdvisoryLockInspector nonNull(AdvisoryLockInspector inspector) {
		Assert.notNull(inspector, "AdvisoryLockInspector must not be null");
		return inspector;
	}

	/**
	 * Return the advisory locks of the database of the default {@code DataSource}.
	 * @return the locks, grouped by key, holders first
	 * @throws InvalidEndpointRequestException if there are several {@code DataSource}s
	 * and none is the default
	 * @throws org.springframework.dao.TransientDataAccessResourceException if no
	 * connection to read them was free in time
	 */
	@ReadOperation
	public AdvisoryLocksDescriptor advisoryLocks() {
		if (this.defaultDataSource == null) {
			String reason = "There are several DataSources and none is primary: ask /advisorylocks/{dataSource}, "
					+ "one of " + this.inspectors.keySet();
			throw new InvalidEndpointRequestException(reason, reason);
		}
		return describe(this.inspectors.get(this.defaultDataSource));
	}

	/**
	 * Return the advisory locks of the database of the {@code DataSource} bean of the
	 * given name.
	 * @param dataSource the bean name
	 * @return the locks, grouped by key, holders first; {@code null} (not found) for a
	 * name that is no {@code DataSource} bean
	 */
	@ReadOperation
	public @Nullable AdvisoryLocksDescriptor advisoryLocksOf(@Selector String dataSource) {
		AdvisoryLockInspector inspector = this.inspectors.get(dataSource);
		return (inspector != null) ? describe(inspector) : null;
	}

	private AdvisoryLocksDescriptor describe(AdvisoryLockInspector inspector) {
		return LockDescriptions.describe(inspector.locks(), this.labels);
	}

	/**
	 * The advisory locks of the current database, or of each target of a routing
	 * {@code DataSource}.
	 *
	 * @param locks the locks, grouped by key, holders first, less those of the
	 * {@code limits}; {@code null} for a routing {@code DataSource}
	 * @param limits the concurrency limits this application took a permit of recently;
	 * {@code null} for a routing {@code DataSource}
	 * @param truncated whether more than {@link AdvisoryLockInspector#MAX_LOCKS} were
	 * found and the rest is left out (for a routing {@code DataSource}: of some target)
	 * @param targets for a routing {@code DataSource}, the locks of each target by lookup
	 * key; otherwise {@code null}
	 * @param error why a target of a routing {@code DataSource} could not be read (its
	 * {@code locks} are then {@code null}); otherwise {@code null}
	 */
	public record AdvisoryLocksDescriptor(@Nullable List<AdvisoryLockDescriptor> locks,
			@Nullable List<AdvisoryLimitDescriptor> limits, boolean truncated,
			@Nullable Map<String, AdvisoryLocksDescriptor> targets,
			@Nullable String error) implements OperationResponseBody {

		/**
		 * Create the descriptor of one database.
		 * @param locks the locks, less those of the {@code limits}
		 * @param limits the concurrency limits
		 * @param truncated whether more than {@link AdvisoryLockInspector#MAX_LOCKS} were
		 * found
		 */
		public AdvisoryLocksDescriptor(List<AdvisoryLockDescriptor> locks, List<AdvisoryLimitDescriptor> limits,
				boolean truncated) {
			this(locks, limits, truncated, null, null);
		}

	}

	/**
	 * A concurrency limit ({@code permits} above 1) this application took a permit of
	 * recently, as one entry. A limit of another application, or one not taken recently,
	 * shows as its permits' plain locks, unlabelled.
	 *
	 * @param key the limit's key, that of its permit 0
	 * @param label {@code namespace:value}
	 * @param permits how many calls may hold a permit at once
	 * @param holders the sessions holding a permit, one each, with its key
	 * @param waiters the sessions waiting, each for one permit it chose at random for a
	 * slice of its wait
	 */
	public record AdvisoryLimitDescriptor(long key, String label, int permits, List<AdvisoryLockDescriptor> holders,
			List<AdvisoryLockDescriptor> waiters) {

	}

	/**
	 * One advisory lock held or awaited by one session.
	 *
	 * @param pid the backend process id of the session
	 * @param key the 64-bit key of a lock taken with one {@code bigint}, or {@code null}
	 * @param keyPair the two keys of a lock taken with two {@code int}s, or {@code null}
	 * @param label {@code namespace:value} if this application derived the key recently
	 * @param mode {@code ExclusiveLock} or {@code ShareLock}
	 * @param granted whether it is held ({@code true}) or awaited
	 * @param waitStart since when the session waits, or {@code null} when held (or before
	 * PostgreSQL 14)
	 * @param transactionAge how long the session's transaction has been open
	 * @param state the session's state, such as {@code idle in transaction}
	 * @param applicationName the session's {@code application_name}
	 * @param waitEventType the type of event waited for, such as {@code Lock}
	 * @param waitEvent the event waited for, such as {@code advisory}
	 * @param query the session's query text, only with
	 * {@code advisory-lock.endpoint.include-query}
	 */
	public record AdvisoryLockDescriptor(int pid, @Nullable Long key, @Nullable List<Integer> keyPair,
			@Nullable String label, String mode, boolean granted, @Nullable Instant waitStart,
			@Nullable Duration transactionAge, @Nullable String state, @Nullable String applicationName,
			@Nullable String waitEventType, @Nullable String waitEvent, @Nullable String query) {

	}

}

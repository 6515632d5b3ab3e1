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

package io.github.advisorylock.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

/**
 * Configuration properties of advisory-lock, under {@code advisory-lock}. Each value is
 * checked where it is used, with an error naming the property.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@ConfigurationProperties("advisory-lock")
public class AdvisoryLockProperties {

	/**
	 * How long a BLOCK acquisition waits when the annotation or request gives no timeout.
	 */
	private Duration defaultTimeout = Duration.ofSeconds(2);

	/**
	 * Most distinct keys one call may lock; each takes an entry in PostgreSQL's shared
	 * lock table.
	 */
	private int maxKeys = 64;

	private final Annotation annotation = new Annotation();

	private final Invocation invocation = new Invocation();

	private final Diagnosis diagnosis = new Diagnosis();

	private final StartupCheck startupCheck = new StartupCheck();

	private final Endpoint endpoint = new Endpoint();

	private final Shedlock shedlock = new Shedlock();

	private final Integration integration = new Integration();

	/**
	 * Return whether {@code @AdvisoryLocked} methods take their locks.
	 * @return whether the annotation is active
	 * @deprecated since 0.1.0 in favour of {@code advisory-lock.annotation.enabled}
	 */
	@Deprecated(since = "0.1.0")
	@DeprecatedConfigurationProperty(replacement = "advisory-lock.annotation.enabled",
			reason = "It turns only the annotation off; AdvisoryLockOperations stays available", since = "0.1.0")
	public boolean isEnabled() {
		return this.annotation.isEnabled();
	}

	/**
	 * Set whether {@code @AdvisoryLocked} methods take their locks.
	 * @param enabled whether the annotation is active
	 * @deprecated since 0.1.0 in favour of {@code advisory-lock.annotation.enabled}
	 */
	@Deprecated(since = "0.1.0")
	public void setEnabled(boolean enabled) {
		this.annotation.setEnabled(enabled);
	}

	/** Return the settings of the {@code @AdvisoryLocked} annotation. */
	public Annotation getAnnotation() {
		return this.annotation;
	}

	/** Return how long a BLOCK acquisition waits when no timeout is given. */
	public Duration getDefaultTimeout() {
		return this.defaultTimeout;
	}

	/** Set how long a BLOCK acquisition waits when no timeout is given. */
	public void setDefaultTimeout(Duration defaultTimeout) {
		this.defaultTimeout = defaultTimeout;
	}

	/** Return the most distinct keys one call may lock. */
	public int getMaxKeys() {
		return this.maxKeys;
	}

	/** Set the most distinct keys one call may lock. */
	public void setMaxKeys(int maxKeys) {
		this.maxKeys = maxKeys;
	}

	/** Return the settings of invocation-scoped locks. */
	public Invocation getInvocation() {
		return this.invocation;
	}

	/** Return the settings of the diagnosis of busy locks. */
	public Diagnosis getDiagnosis() {
		return this.diagnosis;
	}

	/** Return the settings of the check, at startup, that the locks exclude. */
	public StartupCheck getStartupCheck() {
		return this.startupCheck;
	}

	/** Return the settings of the {@code advisorylocks} Actuator endpoint. */
	public Endpoint getEndpoint() {
		return this.endpoint;
	}

	/** Return the settings of the ShedLock {@code LockProvider}. */
	public Shedlock getShedlock() {
		return this.shedlock;
	}

	/** Return the settings of the Spring Integration {@code LockRegistry}. */
	public Integration getIntegration() {
		return this.integration;
	}

	/**
	 * Settings of the {@code @AdvisoryLocked} annotation.
	 */
	public static class Annotation {

		/**
		 * Whether methods annotated with @AdvisoryLocked take their locks.
		 * AdvisoryLockOperations stays available either way.
		 */
		private boolean enabled = true;

		/** Return whether {@code @AdvisoryLocked} methods take their locks. */
		public boolean isEnabled() {
			return this.enabled;
		}

		/** Set whether {@code @AdvisoryLocked} methods take their locks. */
		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Settings of invocation-scoped locks ({@code scope = LockScope.INVOCATION}), each
	 * held by a connection of its own for the whole call.
	 */
	public static class Invocation {

		/**
		 * How often an invocation-scoped lock's connection is checked while the method
		 * runs; PostgreSQL ends a session that missed three, which releases its lock.
		 */
		private Duration heartbeat = Duration.ofSeconds(10);

		/**
		 * Most invocation-scoped locks held at once by this instance on each DataSource,
		 * each by a connection outside the application's pool; one more fails at once
		 * rather than waits.
		 */
		private int maxConnections = 4;

		/** Return how often an invocation-scoped lock's connection is checked. */
		public Duration getHeartbeat() {
			return this.heartbeat;
		}

		/** Set how often an invocation-scoped lock's connection is checked. */
		public void setHeartbeat(Duration heartbeat) {
			this.heartbeat = heartbeat;
		}

		/**
		 * Return the most invocation-scoped locks held at once on each
		 * {@code DataSource}.
		 */
		public int getMaxConnections() {
			return this.maxConnections;
		}

		/**
		 * Set the most invocation-scoped locks held at once on each {@code DataSource}.
		 */
		public void setMaxConnections(int maxConnections) {
			this.maxConnections = maxConnections;
		}

	}

	/**
	 * Settings of the check, at startup, that a second session of each DataSource and
	 * ConnectionFactory is refused a key a first one holds (docs/poolers.md).
	 */
	public static class StartupCheck {

		/**
		 * Whether the startup fails where advisory locks exclude nobody (a proxy that
		 * sends sessions to different servers, a server whose lock functions lock
		 * nothing). Off, such locks protect nothing, silently.
		 */
		private boolean enabled = true;

		/**
		 * Bound on the check of one DataSource or ConnectionFactory; one not made within
		 * it (the database down, a pool of one) logs a warning, and the startup goes on.
		 */
		private Duration timeout = Duration.ofSeconds(3);

		/** Return whether the check runs. */
		public boolean isEnabled() {
			return this.enabled;
		}

		/** Set whether the check runs. */
		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		/** Return the bound on the check of one source. */
		public Duration getTimeout() {
			return this.timeout;
		}

		/** Set the bound on the check of one source. */
		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/**
	 * Settings of the diagnosis that names the holders of a busy lock in its
	 * {@code LockBusyException}.
	 */
	public static class Diagnosis {

		/**
		 * Whether a LockBusyException names the sessions holding the lock; it costs one
		 * query, on the failure path only.
		 */
		private boolean enabled = true;

		/**
		 * Bound on connecting and on the query of one diagnosis, in whole seconds (at
		 * least 1s).
		 */
		private Duration timeout = Duration.ofSeconds(1);

		/** Return whether busy locks are diagnosed. */
		public boolean isEnabled() {
			return this.enabled;
		}

		/** Set whether busy locks are diagnosed. */
		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		/** Return the bound on connecting and on the query of one diagnosis. */
		public Duration getTimeout() {
			return this.timeout;
		}

		/**
		 * Set the bound on connecting and on the query of one diagnosis.
		 */
		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/**
	 * Settings of the {@code advisorylocks} Actuator endpoint.
	 */
	public static class Endpoint {

		/**
		 * Whether the endpoint shows each session's query text, which may hold personal
		 * data.
		 */
		private boolean includeQuery = false;

		/**
		 * How many recently derived keys the endpoint can label with their
		 * namespace:value; each takes at most about 450 bytes of heap.
		 */
		private int keyLabels = 1024;

		/** Return whether the endpoint shows query text. */
		public boolean isIncludeQuery() {
			return this.includeQuery;
		}

		/** Set whether the endpoint shows query text. */
		public void setIncludeQuery(boolean includeQuery) {
			this.includeQuery = includeQuery;
		}

		/** Return how many recently derived keys the endpoint can label. */
		public int getKeyLabels() {
			return this.keyLabels;
		}

		/**
		 * Set how many recently derived keys the endpoint can label; 0 turns labels off.
		 */
		public void setKeyLabels(int keyLabels) {
			this.keyLabels = keyLabels;
		}

	}

	/**
	 * Settings of the ShedLock {@code LockProvider} on advisory locks, auto-configured
	 * where ShedLock is on the class path.
	 */
	public static class Shedlock {

		/**
		 * Namespace of the locks of @SchedulerLock: each lock name is a key in it.
		 */
		private String namespace = "shedlock";

		/** Return the namespace of the locks. */
		public String getNamespace() {
			return this.namespace;
		}

		/**
		 * Set the namespace of the locks.
		 */
		public void setNamespace(String namespace) {
			this.namespace = namespace;
		}

	}

	/**
	 * Settings of the Spring Integration {@code LockRegistry} on advisory locks,
	 * auto-configured where Spring Integration is on the class path.
	 */
	public static class Integration {

		/**
		 * Namespace of the locks of the LockRegistry: each lock key is a key in it.
		 */
		private String namespace = "spring-integration";

		/** Return the namespace of the locks. */
		public String getNamespace() {
			return this.namespace;
		}

		/**
		 * Set the namespace of the locks.
		 */
		public void setNamespace(String namespace) {
			this.namespace = namespace;
		}

	}

}

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

package io.github.advisorylock.observation;

import java.util.List;
import java.util.Locale;

import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * Observes advisory lock acquisitions with Micrometer's Observation API, so that the same
 * instrumentation gives metrics and, where a tracer is configured, spans.
 *
 * <p>
 * Two observations, with low-cardinality tags only (docs/observability.md lists their
 * values):
 * <ul>
 * <li>{@value #ACQUIRE}: each acquisition, from its statement to its outcome, tagged
 * {@code namespace}, {@code scope}, {@code mode}, {@code permits} ({@code 1} for a plain
 * lock), {@code wait.mode}, {@code fenced} and {@code outcome} ({@code acquired},
 * {@code busy}, {@code skipped}, {@code timeout}, {@code error}, or {@code lost} for a
 * fenced write whose enclosing lock is lost). The permit a limit's call took is the
 * high-cardinality {@code permit}, which spans show and metrics leave out.</li>
 * <li>{@value #HELD}: from acquisition to the end of the transaction or call, tagged
 * {@code namespace}, {@code scope}, {@code mode}, {@code permits} and {@code outcome}:
 * {@code committed}, {@code rolled_back}, {@code unknown} or
 * {@code rolled_back_to_savepoint} for a transaction; {@code released} or {@code lost}
 * for an invocation; {@code released} for a reactive transaction, as a listener is not
 * told whether it committed. Its long-task timer counts the calls holding locks, one per
 * call.</li>
 * </ul>
 * A namespace is a tag, so it must be a fixed word chosen in code, never built from data.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class ObservingLockAcquisitionListener implements LockAcquisitionListener {

	/** The name of the acquisition observation. */
	public static final String ACQUIRE = "advisory.lock.acquire";

	/** The name of the observation of the time a lock is held. */
	public static final String HELD = "advisory.lock.held";

	private static final String ROLLED_BACK_TO_SAVEPOINT = "rolled_back_to_savepoint";

	private final ObservationRegistry registry;

	/** Create a listener that reports to the given registry. */
	public ObservingLockAcquisitionListener(ObservationRegistry registry) {
		Assert.notNull(registry, "ObservationRegistry must not be null");
		this.registry = registry;
	}

	@Override
	public Acquisition starting(String namespace, LockScope scope, LockMode mode, WaitMode waitMode, List<Long> keys,
			List<String> values) {
		return observe(namespace, scope, mode, waitMode, 1);
	}

	@Override
	public Acquisition startingLimit(String namespace, LockScope scope, WaitMode waitMode, String value,
			List<Long> permitKeys) {
		return observe(namespace, scope, LockMode.EXCLUSIVE, waitMode, permitKeys.size());
	}

	private Acquisition observe(String namespace, LockScope scope, LockMode mode, WaitMode waitMode, int permits) {
		if (this.registry.isNoop()) {
			return Acquisition.IGNORED;
		}
		String scopeTag = tag(scope);
		String modeTag = tag(mode);
		// Every observation has the tag, 1 for a plain lock: a meter registry such as
		// Prometheus's wants the same tag keys on every meter of a name.
		String permitsTag = Integer.toString(permits);
		Observation acquire = Observation.createNotStarted(ACQUIRE, this.registry)
			.contextualName("advisory lock " + namespace)
			.lowCardinalityKeyValue("namespace", namespace)
			.lowCardinalityKeyValue("scope", scopeTag)
			.lowCardinalityKeyValue("mode", modeTag)
			.lowCardinalityKeyValue("permits", permitsTag)
			.lowCardinalityKeyValue("wait.mode", tag(waitMode))
			.lowCardinalityKeyValue("fenced", "false")
			.start();
		return new Acquisition() {

			private volatile @Nullable Observation held;

			private volatile @Nullable HeldInTransaction heldInTransaction;

			@Override
			public void finished(Outcome outcome, @Nullable Throwable error) {
				acquire.lowCardinalityKeyValue("outcome", tag(outcome));
				// Busy, skipped and timeout are expected outcomes, told by the tag; only
				// ERROR fails the observation.
				if (outcome == Outcome.ERROR && error != null) {
					acquire.error(error);
				}
				acquire.stop();
				if (outcome != Outcome.ACQUIRED) {
					return;
				}
				if (scope == LockScope.INVOCATION || !TransactionSynchronizationManager.isSynchronizationActive()) {
					// Invocation scope, or a reactive transaction: released() ends it.
					this.held = startHeld(namespace, scopeTag, modeTag, permitsTag);
				}
				else if (TransactionSynchronizationManager.isSynchronizationActive()) {
					HeldInTransaction heldInTransaction = new HeldInTransaction(
							startHeld(namespace, scopeTag, modeTag, permitsTag));
					TransactionSynchronizationManager.registerSynchronization(heldInTransaction);
					this.heldInTransaction = heldInTransaction;
				}
			}

			@Override
			public void permitTaken(int permit) {
				// Which permit is no tag: a span tells it, a metric needs no more series.
				acquire.highCardinalityKeyValue("permit", Integer.toString(permit));
			}

			@Override
			public void fenced() {
				acquire.lowCardinalityKeyValue("fenced", "true");
			}

			@Override
			public void lost(LockLostException error) {
				// Not an error of the acquisition: the enclosing lock was lost, which its
				// own held observation ends with.
				acquire.lowCardinalityKeyValue("outcome", "lost").stop();
			}

			@Override
			public void released(boolean lost) {
				Observation held = this.held;
				if (held != null) {
					held.lowCardinalityKeyValue("outcome", lost ? "lost" : "released").stop();
				}
			}

			@Override
			public void releasedToSavepoint() {
				HeldInTransaction heldInTransaction = this.heldInTransaction;
				if (heldInTransaction != null) {
					heldInTransaction.end(ROLLED_BACK_TO_SAVEPOINT);
				}
			}

		};
	}

	private Observation startHeld(String namespace, String scope, String mode, String permits) {
		return Observation.createNotStarted(HELD, this.registry)
			.contextualName("advisory lock " + namespace + " held")
			.lowCardinalityKeyValue("namespace", namespace)
			.lowCardinalityKeyValue("scope", scope)
			.lowCardinalityKeyValue("mode", mode)
			.lowCardinalityKeyValue("permits", permits)
			.start();
	}

	private static String tag(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * The held observation of a transaction-scoped lock, ended with its transaction, or
	 * earlier by a rollback to a savepoint made before it.
	 */
	private static final class HeldInTransaction implements TransactionSynchronization {

		private final Observation held;

		private boolean ended;

		HeldInTransaction(Observation held) {
			this.held = held;
		}

		@Override
		public void afterCompletion(int status) {
			end(switch (status) {
				case STATUS_COMMITTED -> "committed";
				case STATUS_ROLLED_BACK -> "rolled_back";
				default -> "unknown";
			});
		}

		void end(String outcome) {
			if (!this.ended) {
				this.ended = true;
				this.held.lowCardinalityKeyValue("outcome", outcome).stop();
			}
		}

	}

}

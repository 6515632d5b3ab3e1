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

package io.github.advisorylock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Tells every {@link LockAcquisitionListener} about an acquisition, each on its own: a
 * listener that throws, against its contract, is logged and skipped, so that the other
 * listeners still hear and the caller's call, whose lock may already be held, is not
 * turned into a failure. Internal: used by the driver adapters, not API.
 *
 * @author advisory-lock authors
 */
public final class LockAcquisitionListeners {

	private static final Log logger = LogFactory.getLog(LockAcquisitionListeners.class);

	/**
	 * Listener classes already reported at WARN; later failures of the same class go to
	 * DEBUG.
	 */
	private static final Set<Class<?>> reported = ConcurrentHashMap.newKeySet();

	private LockAcquisitionListeners() {
	}

	/**
	 * Tell each listener that an acquisition starts.
	 * @param listeners the listeners, in order
	 * @param namespace the namespace of the call
	 * @param scope the scope of the call
	 * @param mode the mode of the call
	 * @param waitMode the wait mode of the call
	 * @param keys the keys to acquire, ascending
	 * @param values the text of the value of each key, in the same order
	 * @return the acquisition that tells each listener how it ended
	 */
	public static Acquisition starting(List<LockAcquisitionListener> listeners, String namespace, LockScope scope,
			LockMode mode, WaitMode waitMode, List<Long> keys, List<String> values) {
		return starting(listeners, namespace,
				(listener) -> listener.starting(namespace, scope, mode, waitMode, keys, values));
	}

	/**
	 * Tell each listener that an acquisition of a concurrency limit starts.
	 * @param listeners the listeners, in order
	 * @param namespace the namespace of the call
	 * @param scope the scope of the call
	 * @param waitMode the wait mode of the call
	 * @param slots the keys of the limit's permits
	 * @return the acquisition that tells each listener the permit taken and how it ended
	 */
	public static Acquisition startingLimit(List<LockAcquisitionListener> listeners, String namespace, LockScope scope,
			WaitMode waitMode, PermitSlots slots) {
		return starting(listeners, namespace,
				(listener) -> listener.startingLimit(namespace, scope, waitMode, slots.value(), slots.slots()));
	}

	private static Acquisition starting(List<LockAcquisitionListener> listeners, String namespace,
			Function<LockAcquisitionListener, @Nullable Acquisition> starting) {
		if (listeners.isEmpty()) {
			return Acquisition.IGNORED;
		}
		List<Acquisition> acquisitions = new ArrayList<>(listeners.size());
		List<LockAcquisitionListener> listening = new ArrayList<>(listeners.size());
		for (LockAcquisitionListener listener : listeners) {
			try {
				Acquisition acquisition = starting.apply(listener);
				if (acquisition != null && acquisition != Acquisition.IGNORED) {
					acquisitions.add(acquisition);
					listening.add(listener);
				}
			}
			catch (RuntimeException ex) {
				report(listener, "starting", namespace, ex);
			}
		}
		if (acquisitions.isEmpty()) {
			return Acquisition.IGNORED;
		}
		return new Acquisitions(listening, acquisitions, namespace);
	}

	/**
	 * The acquisitions of the listeners that care, told each on its own.
	 */
	private record Acquisitions(List<LockAcquisitionListener> listeners, List<Acquisition> acquisitions,
			String namespace) implements Acquisition {

		@Override
		public void finished(Outcome outcome, @Nullable Throwable error) {
			tell("finished", (acquisition) -> acquisition.finished(outcome, error));
		}

		@Override
		public void permitTaken(int permit) {
			tell("permitTaken", (acquisition) -> acquisition.permitTaken(permit));
		}

		@Override
		public void fenced() {
			tell("fenced", Acquisition::fenced);
		}

		@Override
		public void lost(LockLostException error) {
			tell("lost", (acquisition) -> acquisition.lost(error));
		}

		@Override
		public void released(boolean lost) {
			tell("released", (acquisition) -> acquisition.released(lost));
		}

		@Override
		public void releasedToSavepoint() {
			tell("releasedToSavepoint", Acquisition::releasedToSavepoint);
		}

		private void tell(String phase, Consumer<Acquisition> call) {
			for (int i = 0; i < this.acquisitions.size(); i++) {
				try {
					call.accept(this.acquisitions.get(i));
				}
				catch (RuntimeException ex) {
					report(this.listeners.get(i), phase, this.namespace, ex);
				}
			}
		}

	}

	private static void report(LockAcquisitionListener listener, String phase, String namespace, RuntimeException ex) {
		String message = "LockAcquisitionListener " + listener.getClass().getName() + " threw in " + phase
				+ " for advisory lock '" + namespace + "'; ignored, but listeners must not throw";
		if (reported.add(listener.getClass())) {
			logger.warn(message + " (reported once per listener class, later ones at DEBUG)", ex);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug(message, ex);
		}
	}

}

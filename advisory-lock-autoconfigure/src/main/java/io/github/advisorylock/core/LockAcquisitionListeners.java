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
import io.github.advisorylock.LockRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The listeners of a template, each told on its own: one that throws, against its
 * contract, is logged and skipped, so that the others still hear and the call, whose lock
 * may be held, does not fail. Immutable, part of {@link LockSettings}.
 *
 * @author advisory-lock authors
 */
public final class LockAcquisitionListeners {

	/** No listener: every acquisition is {@link Acquisition#IGNORED}. */
	public static final LockAcquisitionListeners NONE = new LockAcquisitionListeners(List.of());

	private static final Log logger = LogFactory.getLog(LockAcquisitionListeners.class);

	/** Listener classes reported at WARN; their later failures go to DEBUG. */
	private static final Set<Class<?>> reported = ConcurrentHashMap.newKeySet();

	private final List<LockAcquisitionListener> listeners;

	private LockAcquisitionListeners(List<LockAcquisitionListener> listeners) {
		this.listeners = listeners;
	}

	/** Return the listeners, told in this order. */
	public static LockAcquisitionListeners of(List<LockAcquisitionListener> listeners) {
		return listeners.isEmpty() ? NONE : new LockAcquisitionListeners(List.copyOf(listeners));
	}

	/**
	 * Tell each listener that an acquisition, of a limit or a plain lock, starts.
	 * @param keys the keys it takes now
	 * @param slots the keys of its limit's permits, or {@code null} for a plain lock
	 * @return the acquisition that tells each listener what follows
	 */
	public Acquisition starting(LockRequest request, LockKeys keys, @Nullable PermitSlots slots) {
		if (this.listeners.isEmpty()) {
			return Acquisition.IGNORED;
		}
		String namespace = request.namespace();
		Function<LockAcquisitionListener, @Nullable Acquisition> starting = (slots != null)
				? (listener) -> listener.startingLimit(namespace, request.scope(), request.waitMode(), slots.value(),
						slots.slots())
				: (listener) -> listener.starting(namespace, request.scope(), request.mode(), request.waitMode(),
						keys.keys(), keys.values());
		List<Acquisition> acquisitions = new ArrayList<>(this.listeners.size());
		List<LockAcquisitionListener> listening = new ArrayList<>(this.listeners.size());
		for (LockAcquisitionListener listener : this.listeners) {
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

	/** The acquisitions of the listeners that care. */
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

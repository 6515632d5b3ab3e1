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

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;

/**
 * Closes the auto-configured advisory lock templates as the application context closes,
 * so that no locked work starts after shutdown: a call made then, or a wait in progress
 * (cancelled on the server), fails with a
 * {@link org.springframework.dao.CannotAcquireLockException}.
 *
 * <p>
 * {@link #PHASE} lets requests in flight take their locks and finish during the web
 * server's graceful shutdown, and closes the templates before the connection pools
 * (docs/failures.md, "At shutdown"). Only a context that closes closes them, as its
 * {@link ContextClosedEvent} comes before its phases stop: one only stopped and started
 * again (Spring Framework 7 pauses cached test contexts so) keeps its templates open.
 *
 * @author advisory-lock authors
 */
final class AdvisoryLockShutdown
		implements SmartLifecycle, ApplicationListener<ContextClosedEvent>, ApplicationContextAware {

	/** After the web server's graceful shutdown and stop, before the pools close. */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final Log logger = LogFactory.getLog(AdvisoryLockShutdown.class);

	private final ObjectProvider<? extends AutoCloseable> templates;

	private volatile boolean running;

	private volatile boolean closing;

	private @Nullable ApplicationContext context;

	AdvisoryLockShutdown(ObjectProvider<? extends AutoCloseable> templates) {
		this.templates = templates;
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void setApplicationContext(ApplicationContext context) {
		this.context = context;
	}

	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		// A child context's event reaches its parent's listeners too.
		if (event.getApplicationContext() == this.context) {
			this.closing = true;
		}
	}

	@Override
	public void stop() {
		this.running = false;
		if (!this.closing) {
			return;
		}
		this.templates.orderedStream().forEach((template) -> {
			try {
				template.close();
			}
			catch (Exception ex) {
				logger.warn("Closing the advisory lock template failed", ex);
			}
		});
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}

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

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The resources a template may lock on by bean name, and the default one: the JDBC
 * template's {@code DataSource}s, the R2DBC one's {@code ConnectionFactory}s. Refuses a
 * wrong or missing name, or none or several connections bound, in the same words on both
 * drivers; each driver adds how a call finds its transaction's connection.
 *
 * @param <R> the driver's resource
 * @author advisory-lock authors
 */
public class NamedResources<R> {

	private final String kind;

	private final Map<String, R> byName;

	private final @Nullable String defaultName;

	/**
	 * Create the resources of a template.
	 * @param kind what they are, for messages, as {@code DataSource}
	 * @param byName the resources by bean name, at least one
	 * @param defaultName the name of the default one, or {@code null} for none
	 */
	protected NamedResources(String kind, Map<String, R> byName, @Nullable String defaultName) {
		Assert.notEmpty(byName, () -> "At least one " + kind + " is required");
		byName.forEach((name, resource) -> {
			Assert.hasText(name, () -> kind + " names must not be blank");
			Assert.notNull(resource, () -> kind + " '" + name + "' must not be null");
		});
		Assert.isTrue(defaultName == null || byName.containsKey(defaultName),
				() -> "The default " + kind + " '" + defaultName + "' is none of " + byName.keySet());
		this.kind = kind;
		this.byName = Collections.unmodifiableMap(new LinkedHashMap<>(byName));
		this.defaultName = defaultName;
	}

	/** Return the resources by bean name, in the order they were given. */
	public Map<String, R> byName() {
		return this.byName;
	}

	/** Return the bean names of the resources. */
	public Set<String> names() {
		return this.byName.keySet();
	}

	/**
	 * Return the name of the default resource.
	 * @return the name, or {@code null} for none
	 */
	public @Nullable String defaultName() {
		return this.defaultName;
	}

	/**
	 * Return the default resource.
	 * @return the resource, or {@code null} for none
	 */
	public @Nullable R defaultResource() {
		return (this.defaultName != null) ? this.byName.get(this.defaultName) : null;
	}

	/**
	 * Return the resource a call names.
	 * @param namespace the namespace of the call, for the message
	 * @param name the bean name
	 * @return the resource
	 * @throws IllegalArgumentException if no resource has that name
	 */
	public R named(String namespace, String name) {
		R resource = this.byName.get(name);
		if (resource == null) {
			throw new IllegalArgumentException("Advisory lock '" + namespace + "' names " + this.kind + " '" + name
					+ "', and no " + this.kind + " bean has that name; the known ones are " + this.byName.keySet()
					+ ". Correct @AdvisoryLocked(dataSource = ...) or LockRequest.withDataSource(...)");
		}
		return resource;
	}

	/**
	 * Return the name of the resource an invocation-scoped call takes its connection
	 * from.
	 * @param namespace the namespace of the call, for messages
	 * @param name the name the call gives, or {@code null}
	 * @return the name
	 * @throws IllegalArgumentException if the name is none of the known ones
	 * @throws IllegalStateException if the call names none and there is no default
	 */
	public String invocationName(String namespace, @Nullable String name) {
		if (name != null) {
			named(namespace, name);
			return name;
		}
		if (this.defaultName == null) {
			throw new IllegalStateException("Invocation-scoped advisory lock '" + namespace + "' needs a " + this.kind
					+ " for its own connection, and there are several (" + this.byName.keySet() + ") with no primary "
					+ "one: name it with @AdvisoryLocked(dataSource = \"...\") or LockRequest.withDataSource(\"...\"), "
					+ "or mark one " + this.kind + " bean @Primary");
		}
		return this.defaultName;
	}

	/**
	 * Refuse a transaction-scoped call that found no connection of its resource bound to
	 * the current transaction: a lock taken in another session would protect nothing.
	 * @param name the name the call gives, or {@code null}
	 * @param bound the names of the resources that have one, said when the call names
	 * another
	 * @param driver the driver's name, as {@code JDBC}
	 * @param transaction the transaction looked at, as {@code transaction}
	 * @param manager what the transaction manager must be or do
	 */
	protected LockTransactionException noBoundConnection(LockRequest request, @Nullable String name, List<String> bound,
			String driver, String transaction, String manager) {
		String which = (name != null)
				? this.kind + " '" + name + "'" + (bound.isEmpty() ? "" : " (only of " + bound + ")")
				: "its " + ((this.byName.size() > 1) ? plural() + " " + names() : this.kind);
		return LockFailures.refused(request,
				"Advisory lock '" + request.namespace() + "' found no " + driver + " connection of " + which
						+ " bound to the current " + transaction + ": the transaction manager must " + manager
						+ ", or the lock would be taken in another session and protect nothing");
	}

	/**
	 * Refuse a transaction-scoped call that found connections of several resources bound
	 * and no name to tell which one the lock must join.
	 * @param bound the names of those resources, in order
	 * @param transactions the transactions looked at, as
	 * {@code transactions of this thread}
	 * @param fix how to tell them apart, or {@code null} to name one of them
	 */
	protected LockTransactionException severalBound(LockRequest request, List<String> bound, String transactions,
			@Nullable String fix) {
		return LockFailures.refused(request, "Advisory lock '" + request.namespace() + "' found connections of several "
				+ plural() + " bound to the " + transactions + ", " + bound + " (a transaction of one manager runs "
				+ "inside another's), and cannot tell which one the lock must join: "
				+ ((fix != null) ? fix : "name the one the lock must join, one of " + bound
						+ ", with @AdvisoryLocked(dataSource = \"...\") or LockRequest.withDataSource(\"...\")"));
	}

	private String plural() {
		return this.kind.endsWith("y") ? this.kind.substring(0, this.kind.length() - 1) + "ies" : this.kind + "s";
	}

}

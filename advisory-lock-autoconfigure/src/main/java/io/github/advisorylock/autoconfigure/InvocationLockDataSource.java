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

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Qualifier for the {@link javax.sql.DataSource} that invocation-scoped advisory locks
 * take their connections from, as {@code @FlywayDataSource} does for Flyway. Without one,
 * they come from a pool derived from the application's Hikari pool (same server and
 * credentials, at most {@code advisory-lock.invocation.max-connections}); define one when
 * the application's {@code DataSource} is not a Hikari pool, or its credentials are known
 * only to a wrapper. It must not be the pool the application's work uses: each lock keeps
 * a connection for its whole call.
 *
 * <p>
 * Where the application's {@code DataSource} routes ({@code AbstractRoutingDataSource}),
 * each call's connection comes from a pool derived from the target it routes to; a
 * qualified {@code DataSource} replaces that too, and decides the database of every
 * invocation-scoped lock itself.
 *
 * <p>
 * Declare it with {@code defaultCandidate = false}, so that Spring Boot and this starter
 * still see the application's {@code DataSource} as the single candidate.
 *
 * <pre class="code">
 * &#64;Bean(defaultCandidate = false)
 * &#64;InvocationLockDataSource
 * DataSource lockDataSource() {
 *     return new SimpleDriverDataSource(new org.postgresql.Driver(), url, user, password);
 * }
 * </pre>
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface InvocationLockDataSource {

}

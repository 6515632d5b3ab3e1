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

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The JDBC side of a lock test, built for each test and closed after it: the
 * application's {@link DataSource} (a new pool on the test database, a pool on each of
 * {@link TwoDatabases}, or one the test class owns), its transaction manager,
 * {@link TransactionTemplate} and {@link JdbcTemplate}, and an
 * {@link AdvisoryLockTemplate} on it with the test class's settings. Register it on a
 * field, first among the fields that use it:
 *
 * <pre class="code">
 * &#064;RegisterExtension
 * final JdbcLockFixture fixture = JdbcLockFixture.newPool(2)
 * 	.withLockSettings((locks) -&gt; locks.setHeartbeat(Duration.ofMillis(200)));
 *
 * private final AdvisoryLockTemplate locks = this.fixture.locks();
 * </pre>
 *
 * <p>
 * Each part is built at its first use, and closed after the test only if it was: the lock
 * template, then the pools this fixture made, never a {@code DataSource} it was given. A
 * test that aborts before it asked for its {@code DataSource} (a topology that is not
 * installed) therefore closes nothing and stays a skip.
 */
public final class JdbcLockFixture implements AfterTestExecutionCallback, AfterEachCallback {

	/**
	 * Opens the data sources by name, handing each pool it makes to the function it is
	 * given, to be closed.
	 */
	private final Function<Function<HikariDataSource, DataSource>, Map<String, DataSource>> opener;

	private Function<DataSource, ? extends DataSourceTransactionManager> transactionManagerFactory = DataSourceTransactionManager::new;

	private Consumer<AdvisoryLockTemplate> lockSettings = (locks) -> {
	};

	/** What this fixture built and closes, the last built on top. */
	private final Deque<AutoCloseable> toClose = new ArrayDeque<>();

	private @Nullable Map<String, DataSource> dataSources;

	private final Map<String, DataSourceTransactionManager> transactionManagers = new HashMap<>();

	private final Map<String, TransactionTemplate> transactions = new HashMap<>();

	private @Nullable JdbcTemplate jdbc;

	private @Nullable AdvisoryLockTemplate locks;

	private JdbcLockFixture(Function<Function<HikariDataSource, DataSource>, Map<String, DataSource>> opener) {
		this.opener = opener;
	}

	/**
	 * Return a fixture on a new Hikari pool on the test database, closed after each test.
	 * @param maximumPoolSize the most connections of the pool
	 * @return the fixture
	 */
	public static JdbcLockFixture newPool(int maximumPoolSize) {
		return new JdbcLockFixture(
				(closing) -> Map.of("dataSource", closing.apply(TestDatabase.get().newDataSource(maximumPoolSize))));
	}

	/**
	 * Return a fixture on a new Hikari pool on each of {@link TwoDatabases}, named
	 * {@code first} and {@code second} as {@link TwoDatabases#byName} names them, both
	 * closed after each test. Its lock template knows both, with {@code first} as its
	 * default.
	 * @param maximumPoolSize the most connections of each pool
	 * @return the fixture
	 */
	public static JdbcLockFixture twoDatabases(int maximumPoolSize) {
		return new JdbcLockFixture((closing) -> TwoDatabases.byName(closing.apply(TwoDatabases.first(maximumPoolSize)),
				closing.apply(TwoDatabases.second(maximumPoolSize))));
	}

	/**
	 * Return a fixture on a {@code DataSource} that the caller owns and closes, if it
	 * must be closed.
	 * @param dataSource the data source
	 * @return the fixture
	 */
	public static JdbcLockFixture on(DataSource dataSource) {
		return on(() -> dataSource);
	}

	/**
	 * Return a fixture on a {@code DataSource} that the caller owns, asked for at the
	 * first use of the fixture: from a {@code @BeforeEach} method, where a topology that
	 * is not installed aborts the test.
	 * @param dataSource supplies the data source
	 * @return the fixture
	 */
	public static JdbcLockFixture on(Supplier<? extends DataSource> dataSource) {
		return new JdbcLockFixture((closing) -> Map.of("dataSource", dataSource.get()));
	}

	/**
	 * Make the transaction managers with this factory rather than as plain
	 * {@link DataSourceTransactionManager}s.
	 * @param transactionManagerFactory makes the transaction manager of a data source,
	 * such as {@code JdbcTransactionManager::new}
	 * @return this fixture
	 */
	public JdbcLockFixture withTransactionManager(
			Function<DataSource, ? extends DataSourceTransactionManager> transactionManagerFactory) {
		this.transactionManagerFactory = transactionManagerFactory;
		return this;
	}

	/**
	 * Apply these settings to the lock template when it is built.
	 * @param lockSettings sets what the test class needs, such as the heartbeat or the
	 * listeners
	 * @return this fixture
	 */
	public JdbcLockFixture withLockSettings(Consumer<AdvisoryLockTemplate> lockSettings) {
		this.lockSettings = lockSettings;
		return this;
	}

	/**
	 * Return the application's data source, the lock template's default one.
	 * @return the data source
	 */
	public synchronized DataSource dataSource() {
		return dataSources().values().iterator().next();
	}

	/**
	 * Return one of the data sources by name, {@code first} or {@code second} of
	 * {@link #twoDatabases(int)}.
	 * @param name the name
	 * @return the data source
	 */
	public synchronized DataSource dataSource(String name) {
		DataSource dataSource = dataSources().get(name);
		if (dataSource == null) {
			throw new IllegalArgumentException(
					"No DataSource '" + name + "' in this fixture; it has " + dataSources().keySet());
		}
		return dataSource;
	}

	/**
	 * Return the transaction manager of the application's data source.
	 * @return the transaction manager
	 */
	public synchronized DataSourceTransactionManager transactionManager() {
		return transactionManager(dataSources().keySet().iterator().next());
	}

	private DataSourceTransactionManager transactionManager(String name) {
		return this.transactionManagers.computeIfAbsent(name,
				(key) -> this.transactionManagerFactory.apply(dataSource(key)));
	}

	/**
	 * Return the transactions of the application's data source.
	 * @return the transaction template
	 */
	public synchronized TransactionTemplate transaction() {
		return transaction(dataSources().keySet().iterator().next());
	}

	/**
	 * Return the transactions of one of the data sources by name, {@code first} or
	 * {@code second} of {@link #twoDatabases(int)}.
	 * @param name the name
	 * @return the transaction template
	 */
	public synchronized TransactionTemplate transaction(String name) {
		return this.transactions.computeIfAbsent(name, (key) -> new TransactionTemplate(transactionManager(key)));
	}

	/**
	 * Return a {@link JdbcTemplate} on the application's data source: in a transaction,
	 * on its connection.
	 * @return the JDBC template
	 */
	public synchronized JdbcTemplate jdbc() {
		if (this.jdbc == null) {
			this.jdbc = new JdbcTemplate(dataSource());
		}
		return this.jdbc;
	}

	/**
	 * Return the lock template on the data sources, with the settings of
	 * {@link #withLockSettings}.
	 * @return the lock template
	 */
	public synchronized AdvisoryLockTemplate locks() {
		if (this.locks == null) {
			Map<String, DataSource> dataSources = dataSources();
			AdvisoryLockTemplate locks = (dataSources.size() == 1) ? new AdvisoryLockTemplate(dataSource())
					: new AdvisoryLockTemplate(dataSources, dataSources.keySet().iterator().next());
			this.toClose.push(locks);
			this.lockSettings.accept(locks);
			this.locks = locks;
		}
		return this.locks;
	}

	/**
	 * Return the server's view of the advisory locks, read on a session of its own on the
	 * test database: never through the data source under test.
	 * @return the {@code pg_locks} reader
	 */
	public PgLocks pgLocks() {
		return new PgLocks(TestDatabase.get().dataSource());
	}

	/**
	 * Return a {@link JdbcTemplate} on sessions of their own on the test database, for
	 * reading what the server shows of the sessions under test
	 * ({@code pg_stat_activity}), or ending them.
	 * @return the JDBC template
	 */
	public JdbcTemplate observer() {
		return new JdbcTemplate(TestDatabase.get().dataSource());
	}

	private Map<String, DataSource> dataSources() {
		if (this.dataSources == null) {
			this.dataSources = this.opener.apply((pool) -> {
				this.toClose.push(pool);
				return pool;
			});
		}
		return this.dataSources;
	}

	/**
	 * Close right after the test method, as an {@code @AfterEach} method would: before
	 * {@code TestThreads} awaits the test's threads and {@code NoAdvisoryLocksLeft} looks
	 * for locks left.
	 */
	@Override
	public void afterTestExecution(ExtensionContext context) throws Exception {
		close();
	}

	/**
	 * Close what was built for a test that never ran its method, aborted or failed in a
	 * {@code @BeforeEach} method.
	 */
	@Override
	public void afterEach(ExtensionContext context) throws Exception {
		close();
	}

	private synchronized void close() throws Exception {
		Exception failure = null;
		while (!this.toClose.isEmpty()) {
			try {
				this.toClose.pop().close();
			}
			catch (Exception ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		this.dataSources = null;
		this.transactionManagers.clear();
		this.transactions.clear();
		this.jdbc = null;
		this.locks = null;
		if (failure != null) {
			throw failure;
		}
	}

}

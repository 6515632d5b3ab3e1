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

package io.github.advisorylock.sample.jobs;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A store outside the job's lock database that refuses a write carrying a lower fencing
 * token than one it has accepted, as an object store's conditional put or another service
 * would: here tables of another PostgreSQL database, which the job's fenced writes cannot
 * reach. A holder that lost the job's lock, frozen or cut off, and wakes after the next
 * holder has written here, is refused.
 *
 * <p>
 * {@code archive_highest} keeps the highest token accepted per job;
 * {@code archive_writes} the accepted writes, in the order accepted; and
 * {@code archive_refused} the refused ones, with the highest token they met.
 */
final class FencedArchive {

	private static final String SCHEMA = """
			CREATE TABLE IF NOT EXISTS archive_highest (job text PRIMARY KEY, token bigint NOT NULL);
			CREATE TABLE IF NOT EXISTS archive_writes (
			    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, job text NOT NULL, token bigint NOT NULL,
			    run bigint NOT NULL, batch int NOT NULL, instance text NOT NULL);
			CREATE TABLE IF NOT EXISTS archive_refused (
			    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, job text NOT NULL, token bigint NOT NULL,
			    highest bigint NOT NULL, run bigint NOT NULL, batch int NOT NULL, instance text NOT NULL)""";

	/**
	 * Raises the job's highest token to this one unless it is higher, and records the
	 * write only then: one statement, so the row lock of the job's highest token orders
	 * concurrent writers.
	 */
	private static final String PUT = """
			WITH accepted AS (
			  INSERT INTO archive_highest AS h (job, token) VALUES (:job, :token)
			  ON CONFLICT (job) DO UPDATE SET token = EXCLUDED.token WHERE h.token <= EXCLUDED.token
			  RETURNING token)
			INSERT INTO archive_writes (job, token, run, batch, instance)
			SELECT :job, token, :run, :batch, :instance FROM accepted""";

	private static final String REFUSED = """
			INSERT INTO archive_refused (job, token, highest, run, batch, instance)
			SELECT :job, :token, token, :run, :batch, :instance FROM archive_highest WHERE job = :job""";

	private final JdbcClient jdbc;

	private FencedArchive(DataSource dataSource) {
		this.jdbc = JdbcClient.create(dataSource);
	}

	/**
	 * Connect to the archive's database, creating its tables if they are missing.
	 * @param url the JDBC URL, with the credentials as its parameters
	 * @return the archive
	 */
	static FencedArchive connect(String url) {
		DataSource dataSource = new DriverManagerDataSource(url);
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			// Instances start together: one creates the tables, the others find them.
			statement.execute("SELECT pg_advisory_xact_lock(hashtext('sample archive schema'))");
			statement.execute(SCHEMA);
			connection.commit();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create the archive's tables at " + url.replaceAll("\\?.*", ""),
					ex);
		}
		return new FencedArchive(dataSource);
	}

	/**
	 * Write a batch's record unless the archive has accepted a higher token for the job.
	 * @param job the job
	 * @param token the fencing token of the run's hold of the job's lock
	 * @param run the run
	 * @param batch the batch
	 * @param instance the instance that writes
	 * @return whether it was accepted
	 */
	boolean put(String job, long token, long run, int batch, String instance) {
		boolean accepted = this.jdbc.sql(PUT)
			.param("job", job)
			.param("token", token)
			.param("run", run)
			.param("batch", batch)
			.param("instance", instance)
			.update() == 1;
		if (!accepted) {
			this.jdbc.sql(REFUSED)
				.param("job", job)
				.param("token", token)
				.param("run", run)
				.param("batch", batch)
				.param("instance", instance)
				.update();
		}
		return accepted;
	}

}

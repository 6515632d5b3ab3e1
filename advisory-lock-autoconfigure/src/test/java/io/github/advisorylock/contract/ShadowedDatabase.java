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

package io.github.advisorylock.contract;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.testsupport.TestDatabase;
import org.postgresql.Driver;

import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * A database of the test server whose {@code search_path} is {@code evil, pg_catalog}:
 * listed second, {@code pg_catalog} is no longer searched first, and schema {@code evil}
 * shadows every name the library could send unqualified. Its lock functions answer as a
 * stub does, yes, and lock nothing; every other function, the aggregate {@code count},
 * every operator, base type (as a domain) and table or view of {@code pg_catalog} raises
 * an error that starts with {@link #SHADOWED} and names it. A statement that runs there
 * as it does elsewhere names nothing through the {@code search_path}.
 *
 * <p>
 * A relation's shadow raises once it reads a row, so an empty one stays silent; the
 * library reads only {@code pg_locks}, {@code pg_stat_activity} and {@code pg_database},
 * which always have rows.
 */
final class ShadowedDatabase {

	/** The database's name. */
	static final String NAME = "advisory_lock_shadowed";

	/** How a shadow's error starts. */
	static final String SHADOWED = "shadowed: ";

	private static final String SHADOWS = """
			SET search_path = pg_catalog;
			SET check_function_bodies = off;
			CREATE SCHEMA shadow_guard;
			CREATE FUNCTION shadow_guard.shadowed(name text) RETURNS boolean LANGUAGE plpgsql AS $f$
			BEGIN
			  RAISE EXCEPTION '%s%% resolved to schema evil through the search_path', name;
			END $f$;
			CREATE FUNCTION shadow_guard.count_final(bigint) RETURNS bigint LANGUAGE plpgsql AS $f$
			BEGIN
			  PERFORM shadow_guard.shadowed('aggregate count');
			  RETURN NULL;
			END $f$;
			CREATE SCHEMA evil;
			CREATE FUNCTION evil.pg_try_advisory_xact_lock(bigint) RETURNS boolean LANGUAGE sql AS 'SELECT true';
			CREATE FUNCTION evil.pg_try_advisory_xact_lock(integer, integer) RETURNS boolean LANGUAGE sql AS 'SELECT true';
			CREATE FUNCTION evil.pg_try_advisory_xact_lock_shared(bigint) RETURNS boolean LANGUAGE sql AS 'SELECT true';
			CREATE FUNCTION evil.pg_try_advisory_xact_lock_shared(integer, integer) RETURNS boolean LANGUAGE sql
			  AS 'SELECT true';
			CREATE FUNCTION evil.pg_advisory_xact_lock(bigint) RETURNS void LANGUAGE plpgsql AS 'BEGIN END';
			CREATE FUNCTION evil.pg_advisory_xact_lock(integer, integer) RETURNS void LANGUAGE plpgsql AS 'BEGIN END';
			CREATE FUNCTION evil.pg_advisory_xact_lock_shared(bigint) RETURNS void LANGUAGE plpgsql AS 'BEGIN END';
			CREATE FUNCTION evil.pg_advisory_xact_lock_shared(integer, integer) RETURNS void LANGUAGE plpgsql
			  AS 'BEGIN END';
			CREATE AGGREGATE evil.count(*) (SFUNC = int8inc, STYPE = bigint, FINALFUNC = shadow_guard.count_final,
			  INITCOND = '0');
			CREATE AGGREGATE evil.count("any") (SFUNC = int8inc_any, STYPE = bigint,
			  FINALFUNC = shadow_guard.count_final, INITCOND = '0');
			DO $do$
			DECLARE
			  f record;
			BEGIN
			  FOR f IN SELECT p.proname, pg_get_function_arguments(p.oid) AS arguments,
			                  pg_get_function_result(p.oid) AS result
			           FROM pg_proc AS p
			           WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.prokind = 'f'
			  LOOP
			    BEGIN
			      EXECUTE format('CREATE FUNCTION evil.%%I(%%s) RETURNS %%s LANGUAGE plpgsql AS %%L', f.proname,
			        f.arguments, f.result,
			        format('BEGIN PERFORM shadow_guard.shadowed(%%L); RETURN%%s; END', 'function ' || f.proname,
			          CASE WHEN f.result ~ '^(SETOF |TABLE\\(|void$)' OR f.arguments ~ '\\mOUT ' THEN '' ELSE ' NULL' END));
			    EXCEPTION WHEN others THEN
			      NULL;
			    END;
			  END LOOP;
			END $do$;
			DO $do$
			DECLARE
			  o record;
			BEGIN
			  FOR o IN SELECT op.oid, op.oprname, op.oprleft, op.oprright, op.oprresult
			           FROM pg_operator AS op
			           WHERE op.oprnamespace = 'pg_catalog'::regnamespace
			  LOOP
			    BEGIN
			      EXECUTE format('CREATE FUNCTION shadow_guard.operator_%%s(%%s) RETURNS %%s LANGUAGE plpgsql AS %%L',
			        o.oid,
			        concat_ws(', ', CASE WHEN o.oprleft <> 0 THEN o.oprleft::regtype::text END,
			          o.oprright::regtype::text),
			        o.oprresult::regtype,
			        format('BEGIN PERFORM shadow_guard.shadowed(%%L); RETURN NULL; END', 'operator ' || o.oprname));
			      EXECUTE format('CREATE OPERATOR evil.%%s (%%s RIGHTARG = %%s, FUNCTION = shadow_guard.operator_%%s)',
			        o.oprname,
			        CASE WHEN o.oprleft <> 0 THEN format('LEFTARG = %%s,', o.oprleft::regtype) ELSE '' END,
			        o.oprright::regtype, o.oid);
			    EXCEPTION WHEN others THEN
			      NULL;
			    END;
			  END LOOP;
			END $do$;
			DO $do$
			DECLARE
			  r record;
			BEGIN
			  FOR r IN SELECT c.relname FROM pg_class AS c
			           WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relkind IN ('r', 'v')
			  LOOP
			    BEGIN
			      EXECUTE format('CREATE VIEW evil.%%I AS SELECT c.* FROM pg_catalog.%%I AS c WHERE shadow_guard.shadowed(%%L)',
			        r.relname, r.relname, 'relation ' || r.relname);
			    EXCEPTION WHEN others THEN
			      NULL;
			    END;
			  END LOOP;
			END $do$;
			DO $do$
			DECLARE
			  t record;
			BEGIN
			  FOR t IN SELECT ty.typname FROM pg_type AS ty
			           WHERE ty.typnamespace = 'pg_catalog'::regnamespace AND ty.typtype = 'b'
			             AND ty.typcategory <> 'A'
			  LOOP
			    BEGIN
			      EXECUTE format('CREATE DOMAIN evil.%%I AS pg_catalog.%%I CHECK (shadow_guard.shadowed(%%L))',
			        t.typname, t.typname, 'type ' || t.typname);
			    EXCEPTION WHEN others THEN
			      NULL;
			    END;
			  END LOOP;
			END $do$;
			ALTER DATABASE %s SET search_path = evil, pg_catalog"""
		.formatted(SHADOWED, NAME);

	private static String url;

	private ShadowedDatabase() {
	}

	/**
	 * Return the database's JDBC URL, making it at the first call of the JVM.
	 * @return the URL
	 */
	static synchronized String url() {
		if (url == null) {
			String created = TestDatabase.get().createDatabase(NAME);
			try (Connection connection = clean(created).getConnection();
					Statement statement = connection.createStatement()) {
				statement.execute(SHADOWS);
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Could not make the shadowing schema", ex);
			}
			url = created;
		}
		return url;
	}

	/**
	 * Return a new pool on the database, whose connections have its shadowing
	 * {@code search_path}; the caller closes it.
	 * @param maximumPoolSize the most connections
	 * @return the pool
	 */
	static HikariDataSource shadowed(int maximumPoolSize) {
		return TestDatabase.get().newDataSource(url(), maximumPoolSize);
	}

	/**
	 * Return a data source on the database whose every connection is new and searches
	 * {@code pg_catalog} first, for what a test does from outside: hold keys, read
	 * {@code pg_locks}.
	 * @return the data source
	 */
	static DataSource clean() {
		return clean(url());
	}

	private static DataSource clean(String jdbcUrl) {
		Properties properties = new Properties();
		properties.setProperty("user", TestDatabase.get().username());
		properties.setProperty("password", TestDatabase.get().password());
		properties.setProperty("options", "-c search_path=pg_catalog,public");
		return new SimpleDriverDataSource(new Driver(), jdbcUrl, properties);
	}

}

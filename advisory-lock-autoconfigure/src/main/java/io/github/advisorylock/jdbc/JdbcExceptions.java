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

package io.github.advisorylock.jdbc;

import java.sql.SQLException;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/** Turns an {@link SQLException} into Spring's {@link DataAccessException}. */
final class JdbcExceptions {

	private JdbcExceptions() {
	}

	/**
	 * Create the translator for PostgreSQL, named rather than detected: detection borrows
	 * a second connection, which an exhausted pool may not have.
	 */
	static SQLExceptionTranslator postgresTranslator() {
		return new SQLErrorCodeSQLExceptionTranslator("PostgreSQL");
	}

	/**
	 * Translate an exception, or make it an {@link UncategorizedSQLException} when the
	 * translator has no category.
	 */
	static DataAccessException translate(SQLExceptionTranslator translator, String task, @Nullable String sql,
			SQLException ex) {
		DataAccessException translated = translator.translate(task, sql, ex);
		return (translated != null) ? translated : new UncategorizedSQLException(task, sql, ex);
	}

}

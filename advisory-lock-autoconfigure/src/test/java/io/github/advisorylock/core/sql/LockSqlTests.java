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

package io.github.advisorylock.core.sql;

import java.util.List;

import io.github.advisorylock.LockMode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LockSql}: one text for both drivers, with each driver's parameters,
 * and a namespace in the comment never taken for a parameter.
 */
class LockSqlTests {

	@Test
	void theR2dbcStatementsNumberTheParametersOfTheJdbcOnes() {
		String jdbc = LockSql.JDBC.waitSql(LockMode.EXCLUSIVE, "n");
		String r2dbc = LockSql.R2DBC.waitSql(LockMode.EXCLUSIVE, "n");
		assertThat(jdbc).contains("? OPERATOR(pg_catalog.*) interval", "unnest(?::bigint[])").doesNotContain("$1");
		assertThat(r2dbc).contains("$1 OPERATOR(pg_catalog.*) interval", "unnest($2::bigint[])").doesNotContain("?");
		assertThat(r2dbc.replace("$1", "?").replace("$2", "?")).isEqualTo(jdbc);
	}

	@Test
	void aNamespaceWithAQuestionMarkIsNotAParameter() {
		String sql = LockSql.R2DBC.trySql(LockMode.SHARED, 2, "what?");
		assertThat(sql).startsWith("/* advisory-lock what? */ ").contains("unnest($1::bigint[])");
		assertThat(LockSql.tryWithKeysSql(LockMode.EXCLUSIVE, List.of(-5L), "what?"))
			.startsWith("/* advisory-lock what? */ ")
			.contains("pg_try_advisory_xact_lock((-5)::bigint)")
			.doesNotContain("(?)");
	}

	@Test
	void theKeysWrittenInAreTheArrayOfSeveralKeys() {
		assertThat(LockSql.tryWithKeysSql(LockMode.EXCLUSIVE, List.of(-2L, 7L), "n"))
			.contains("unnest('{-2,7}'::bigint[])")
			.doesNotContain("?");
	}

}

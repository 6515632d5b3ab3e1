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

import java.math.BigInteger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that {@link AdvisoryLockKeys#SQL_EXPRESSION} computes in PostgreSQL the same key
 * as Java, for many values.
 */
class AdvisoryLockKeysSqlTests {

	@Test
	void sqlExpressionMatchesJava() throws SQLException {
		Random random = new Random(20261130);
		List<Object> values = new ArrayList<>(List.of("", "nightly-reconciliation", "ü-é-ß", "日本語", "emoji 🔒",
				"with:colon", "  spaces  ", "quote ' and \" and \\", Long.MIN_VALUE, Long.MAX_VALUE, 0,
				new BigInteger("123456789012345678901234567890"),
				UUID.fromString("4f1c2a9e-3b7d-4c55-9a2e-8d6f0b1c7e42")));
		for (int i = 0; i < 300; i++) {
			values.add(UUID.randomUUID());
			values.add(random.nextLong());
			values.add(randomText(random));
		}
		String sql = "SELECT " + AdvisoryLockKeys.SQL_EXPRESSION.replace("$1", "?").replace("$2", "?");
		try (Connection connection = TestDatabase.get().dataSource().getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (String namespace : List.of("setup_request", "account", "ñamespace")) {
				for (Object value : values) {
					statement.setString(1, namespace);
					statement.setString(2, AdvisoryLockKeys.text(value));
					try (ResultSet result = statement.executeQuery()) {
						result.next();
						assertThat(result.getLong(1)).as("%s:%s", namespace, value)
							.isEqualTo(AdvisoryLockKeys.of(namespace, value));
					}
				}
			}
		}
	}

	private static String randomText(Random random) {
		StringBuilder text = new StringBuilder();
		int length = random.nextInt(40);
		while (text.length() < length) {
			int codePoint = random.nextInt(0x2FFFF) + 1;
			// PostgreSQL text cannot hold surrogates on their own.
			if (Character.isValidCodePoint(codePoint) && !(codePoint >= 0xD800 && codePoint <= 0xDFFF)) {
				text.appendCodePoint(codePoint);
			}
		}
		return text.toString();
	}

}

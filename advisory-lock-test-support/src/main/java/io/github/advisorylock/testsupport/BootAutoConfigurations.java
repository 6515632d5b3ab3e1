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

package io.github.advisorylock.testsupport;

import java.lang.annotation.Annotation;

/**
 * Spring Boot's own auto-configurations and test slice annotations that moved packages in
 * Spring Boot 4, found by name, so that one test source builds and runs on both lines:
 * {@code AutoConfigurations.of(BootAutoConfigurations.dataSource(), …)}.
 *
 * <p>
 * Add a method here when a test needs another moved class; each names its Spring Boot 4
 * class first and its Spring Boot 3 class second.
 */
public final class BootAutoConfigurations {

	private BootAutoConfigurations() {
	}

	/**
	 * Return {@code DataSourceAutoConfiguration}.
	 * @return the class of the Spring Boot line on the class path
	 */
	public static Class<?> dataSource() {
		return find("org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
				"org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration");
	}

	/**
	 * Return {@code DataSourceTransactionManagerAutoConfiguration}.
	 * @return the class of the Spring Boot line on the class path
	 */
	public static Class<?> dataSourceTransactionManager() {
		return find("org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
				"org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration");
	}

	/**
	 * Return {@code JdbcTemplateAutoConfiguration}.
	 * @return the class of the Spring Boot line on the class path
	 */
	public static Class<?> jdbcTemplate() {
		return find("org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration",
				"org.springframework.boot.autoconfigure.jdbc.JdbcTemplateAutoConfiguration");
	}

	/**
	 * Return {@code R2dbcAutoConfiguration}.
	 * @return the class of the Spring Boot line on the class path
	 */
	public static Class<?> r2dbc() {
		return find("org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration",
				"org.springframework.boot.autoconfigure.r2dbc.R2dbcAutoConfiguration");
	}

	/**
	 * Return {@code R2dbcTransactionManagerAutoConfiguration}.
	 * @return the class of the Spring Boot line on the class path
	 */
	public static Class<?> r2dbcTransactionManager() {
		return find("org.springframework.boot.r2dbc.autoconfigure.R2dbcTransactionManagerAutoConfiguration",
				"org.springframework.boot.autoconfigure.r2dbc.R2dbcTransactionManagerAutoConfiguration");
	}

	/**
	 * Return the property that keeps Spring Boot's R2DBC auto-configuration out of a JDBC
	 * test: with the R2DBC driver on the test class path, it would define a
	 * {@code ConnectionFactory}, and Spring Boot's {@code DataSourceAutoConfiguration}
	 * backs off where there is one.
	 * @return the property value, naming the class of both lines (Spring Boot ignores an
	 * exclusion whose class is absent)
	 */
	public static String excludeR2dbc() {
		return "org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration,"
				+ "org.springframework.boot.autoconfigure.r2dbc.R2dbcAutoConfiguration";
	}

	/**
	 * Return {@code TransactionAutoConfiguration}.
	 * @return the class of the Spring Boot line on the class path
	 */
	public static Class<?> transaction() {
		return find("org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
				"org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration");
	}

	/**
	 * Return {@code HibernateJpaAutoConfiguration}.
	 * @return the class of the Spring Boot line on the class path
	 */
	public static Class<?> hibernateJpa() {
		return find("org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
				"org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration");
	}

	/**
	 * Return the {@code @JdbcTest} test slice annotation.
	 * @return the annotation of the Spring Boot line on the class path
	 */
	public static Class<? extends Annotation> jdbcTest() {
		return find("org.springframework.boot.jdbc.test.autoconfigure.JdbcTest",
				"org.springframework.boot.test.autoconfigure.jdbc.JdbcTest")
			.asSubclass(Annotation.class);
	}

	/**
	 * Return the {@code @DataJdbcTest} test slice annotation.
	 * @return the annotation of the Spring Boot line on the class path
	 */
	public static Class<? extends Annotation> dataJdbcTest() {
		return find("org.springframework.boot.data.jdbc.test.autoconfigure.DataJdbcTest",
				"org.springframework.boot.test.autoconfigure.data.jdbc.DataJdbcTest")
			.asSubclass(Annotation.class);
	}

	/**
	 * Return the {@code @DataJpaTest} test slice annotation.
	 * @return the annotation of the Spring Boot line on the class path
	 */
	public static Class<? extends Annotation> dataJpaTest() {
		return find("org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest",
				"org.springframework.boot.test.autoconfigure.orm.jpa.DataJpaTest")
			.asSubclass(Annotation.class);
	}

	/**
	 * Return the {@code @DataR2dbcTest} annotation.
	 * @return the annotation of the Spring Boot line on the class path
	 */
	public static Class<? extends Annotation> dataR2dbcTest() {
		return find("org.springframework.boot.data.r2dbc.test.autoconfigure.DataR2dbcTest",
				"org.springframework.boot.test.autoconfigure.data.r2dbc.DataR2dbcTest")
			.asSubclass(Annotation.class);
	}

	/**
	 * Return the class of the given names that is on the class path. The Spring Boot 4
	 * name is tried first, so that a Boot 4 line that also kept the old name still gets
	 * its own class.
	 * @param boot4Name the class name on Spring Boot 4
	 * @param boot3Name the class name on Spring Boot 3
	 * @return the class
	 * @throws IllegalStateException if neither is on the class path
	 */
	public static Class<?> find(String boot4Name, String boot3Name) {
		ClassLoader classLoader = BootAutoConfigurations.class.getClassLoader();
		for (String name : new String[] { boot4Name, boot3Name }) {
			try {
				return Class.forName(name, false, classLoader);
			}
			catch (ClassNotFoundException ex) {
				// try the other line's name
			}
		}
		throw new IllegalStateException("Neither " + boot4Name + " (Spring Boot 4) nor " + boot3Name
				+ " (Spring Boot 3) is on the class path: add the test dependency (starter or module) that brings it");
	}

}

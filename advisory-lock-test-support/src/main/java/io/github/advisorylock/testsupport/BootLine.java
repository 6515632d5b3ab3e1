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

/**
 * The versions that this build's Spring Boot line is meant to run on, as the parent pom
 * hands them to the tests: the default build is Spring Boot 3.5 on Java 17, the
 * {@code boot4} profile Spring Boot 4 on Java 25. A test compares them with what it
 * really runs on, so that a profile that silently resolves another BOM or runs on another
 * JDK fails.
 *
 * @param springBoot the exact Spring Boot version of the imported BOM
 * @param springFrameworkMajor the major version of Spring Framework that the BOM brings
 * (6 or 7)
 * @param jacksonMajor the major version of the Jackson that the web stack brings (2 or 3)
 * @param java the feature version of the JDK the tests run on (17 or 25)
 */
public record BootLine(String springBoot, int springFrameworkMajor, int jacksonMajor, int java) {

	/**
	 * Description of a failed Java version check, saying how each line picks its JDK.
	 */
	public static final String JAVA_MISMATCH = "Java feature version of the JVM running the tests: the default "
			+ "build runs on a JDK 17 (java on the PATH, or JAVA_HOME), -Pboot4 on a JDK 25 "
			+ "(JAVA_HOME=\"$JAVA25_HOME\"); to run a line on another JDK on purpose, pass "
			+ "-Dboot-line.java=<feature version>";

	private static final String PREFIX = "advisory-lock.expected.";

	/**
	 * Return the line that the build expects, from the system properties that the parent
	 * pom's surefire configuration sets.
	 * @return the expected line
	 * @throws IllegalStateException if a property is missing, as when a test runs outside
	 * Maven
	 */
	public static BootLine expected() {
		return new BootLine(property("spring-boot"), number("spring-framework-major"), number("jackson-major"),
				number("java"));
	}

	private static String property(String name) {
		String value = System.getProperty(PREFIX + name);
		if (value == null || value.isBlank()) {
			throw new IllegalStateException("System property " + PREFIX + name + " is not set: run the tests "
					+ "through Maven, whose surefire configuration (parent pom) sets it for each Spring Boot line");
		}
		return value.trim();
	}

	private static int number(String name) {
		String value = property(name);
		try {
			return Integer.parseInt(value);
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException(
					"System property " + PREFIX + name + " must be a whole number, was '" + value + "'", ex);
		}
	}

	@Override
	public String toString() {
		return "Spring Boot " + this.springBoot + ", Spring Framework " + this.springFrameworkMajor + ".x, Jackson "
				+ this.jacksonMajor + ".x, Java " + this.java;
	}

}

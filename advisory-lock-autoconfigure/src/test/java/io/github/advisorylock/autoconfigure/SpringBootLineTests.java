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

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.BootLine;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.core.SpringVersion;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the library's tests ran on the Spring Boot line the build asked for, and
 * that the auto-configuration names the JDBC, JPA and transaction auto-configurations of
 * that line, which moved packages in Spring Boot 4.
 */
class SpringBootLineTests {

	@Test
	void runsOnTheSpringBootSpringFrameworkAndJavaOfItsLine() {
		BootLine expected = BootLine.expected();
		System.out.println("== advisory-lock-autoconfigure tests ran on Spring Boot " + SpringBootVersion.getVersion()
				+ ", Spring Framework " + SpringVersion.getVersion() + ", Java " + Runtime.version() + " (expected: "
				+ expected + ")");
		assertThat(SpringBootVersion.getVersion()).as("Spring Boot version").isEqualTo(expected.springBoot());
		assertThat(SpringVersion.getVersion()).as("Spring Framework version")
			.startsWith(expected.springFrameworkMajor() + ".");
		assertThat(Runtime.version().feature()).as(BootLine.JAVA_MISMATCH).isEqualTo(expected.java());
	}

	@Test
	void runsAfterTheAutoConfigurationsOfThisLine() {
		AutoConfiguration autoConfiguration = AdvisoryLockAutoConfiguration.class
			.getAnnotation(AutoConfiguration.class);
		assertThat(autoConfiguration.afterName()).contains(autoConfigurationsOfThisLine());
	}

	@Test
	void autoConfigurationMetadataOrdersItAfterThem() throws IOException {
		// Written by spring-boot-autoconfigure-processor at compile time; Spring Boot
		// orders by it without loading the class.
		Properties metadata = new Properties();
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-autoconfigure-metadata.properties")) {
			assertThat(in).as("spring-autoconfigure-metadata.properties").isNotNull();
			metadata.load(in);
		}
		String after = metadata.getProperty(AdvisoryLockAutoConfiguration.class.getName() + ".AutoConfigureAfter");
		assertThat(after).isNotNull();
		assertThat(Arrays.asList(after.split(","))).contains(autoConfigurationsOfThisLine());
	}

	private static String[] autoConfigurationsOfThisLine() {
		return List
			.of(BootAutoConfigurations.dataSource(), BootAutoConfigurations.dataSourceTransactionManager(),
					BootAutoConfigurations.hibernateJpa(), BootAutoConfigurations.transaction())
			.stream()
			.map(Class::getName)
			.toArray(String[]::new);
	}

}

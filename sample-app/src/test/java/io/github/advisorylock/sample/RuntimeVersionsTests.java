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

package io.github.advisorylock.sample;

import java.lang.reflect.Method;
import java.util.Map;

import io.github.advisorylock.testsupport.BootLine;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.SpringVersion;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the sample ran on the Spring Boot line the build asked for: Spring Boot 3.5,
 * Spring Framework 6 and Jackson 2 on Java 17 by default; Spring Boot 4, Spring Framework
 * 7 and Jackson 3 on Java 25 with {@code -Pboot4}. Jackson is the one that writes the
 * sample's JSON responses, as the web stack of that line chose it.
 */
@SpringBootTest
class RuntimeVersionsTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		TestDatabase.get().springDataSourceProperties().forEach((name, value) -> registry.add(name, () -> value));
		// As in SampleDatabaseTests: this context stays cached while later tests run.
		registry.add("sample.jobs.enabled", () -> "false");
	}

	@Autowired
	private RequestMappingHandlerAdapter handlerAdapter;

	@Test
	void runsOnTheVersionsOfItsSpringBootLine() {
		BootLine expected = BootLine.expected();
		Object jsonMapper = jsonMapperOfTheWebStack();
		String jackson = ReflectionUtils.invokeMethod(method(jsonMapper, "version"), jsonMapper).toString();
		System.out.println("== versions: Spring Boot " + SpringBootVersion.getVersion() + ", Spring Framework "
				+ SpringVersion.getVersion() + ", Jackson " + jackson + " (" + jsonMapper.getClass().getName()
				+ "), Java " + Runtime.version() + " (expected: " + expected + ")");
		assertThat(SpringBootVersion.getVersion()).as("Spring Boot version").isEqualTo(expected.springBoot());
		assertThat(SpringVersion.getVersion()).as("Spring Framework version")
			.startsWith(expected.springFrameworkMajor() + ".");
		assertThat(jackson).as("Jackson version").startsWith(expected.jacksonMajor() + ".");
		// Jackson 3 moved to new packages: the major version and the package must agree.
		assertThat(jsonMapper.getClass().getName())
			.startsWith((expected.jacksonMajor() >= 3) ? "tools.jackson." : "com.fasterxml.jackson.");
		assertThat(Runtime.version().feature()).as(BootLine.JAVA_MISMATCH).isEqualTo(expected.java());
	}

	/**
	 * Return the Jackson mapper of the converter that Spring MVC uses to write the
	 * sample's JSON responses.
	 */
	private Object jsonMapperOfTheWebStack() {
		HttpMessageConverter<?> converter = this.handlerAdapter.getMessageConverters()
			.stream()
			.filter((candidate) -> candidate.canWrite(Map.class, MediaType.APPLICATION_JSON))
			.findFirst()
			.orElseThrow(() -> new AssertionError("Spring MVC has no converter that writes JSON"));
		// Spring Framework 7's Jackson 3 converter exposes getMapper(), Spring Framework
		// 6's Jackson 2 converter getObjectMapper().
		for (String getter : new String[] { "getMapper", "getObjectMapper" }) {
			Method method = ReflectionUtils.findMethod(converter.getClass(), getter);
			if (method != null) {
				return ReflectionUtils.invokeMethod(method, converter);
			}
		}
		throw new AssertionError("The JSON converter " + converter.getClass().getName() + " is not a Jackson one");
	}

	private static Method method(Object target, String name) {
		Method method = ReflectionUtils.findMethod(target.getClass(), name);
		assertThat(method).as(target.getClass().getName() + "." + name + "()").isNotNull();
		return method;
	}

}

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

import java.util.stream.Collectors;

import io.github.advisorylock.LockBusyException;

import org.springframework.beans.TypeMismatchException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Answers every error with RFC 9457 problem details ({@code application/problem+json}).
 * The base class already does so for Spring MVC's own errors: a malformed id in the path,
 * unreadable JSON, a failed validation (all 400).
 */
@RestControllerAdvice
class ApiExceptionHandler extends ResponseEntityExceptionHandler {

	/**
	 * Seconds a client should wait before retrying a request that found its lock busy.
	 */
	static final String RETRY_AFTER_SECONDS = "1";

	@ExceptionHandler
	ProblemDetail ruleViolated(RuleViolationException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
		problem.setTitle(ex.getTitle());
		return problem;
	}

	@ExceptionHandler
	ProblemDetail notFound(NotFoundException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail invalid(InvalidRequestException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

	/**
	 * Another request for the same user or account held the lock for longer than the
	 * timeout. Nothing was written, so the client may simply retry.
	 */
	@ExceptionHandler
	ResponseEntity<ProblemDetail> busy(LockBusyException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
				"Another request for the same " + ex.getNamespace() + " is in progress; retry shortly");
		problem.setTitle("Busy");
		return ResponseEntity.status(HttpStatus.CONFLICT)
			.header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS)
			.body(problem);
	}

	/**
	 * Names the malformed path variable or parameter and the type it must have, such as a
	 * UUID.
	 */
	@Override
	protected ResponseEntity<Object> handleTypeMismatch(TypeMismatchException ex, HttpHeaders headers,
			HttpStatusCode status, WebRequest request) {
		Class<?> type = ex.getRequiredType();
		String detail = ex.getPropertyName() + " must be " + ((type != null) ? "a " + type.getSimpleName() : "valid")
				+ ", got '" + ex.getValue() + "'";
		return handleExceptionInternal(ex, ProblemDetail.forStatusAndDetail(status, detail), headers, status, request);
	}

	/**
	 * Says what the JSON parser could not read, such as an unknown plan, so that the
	 * client knows what to fix.
	 */
	@Override
	protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		String reason = String.valueOf(ex.getMostSpecificCause().getMessage()).lines().findFirst().orElse("");
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, "Unreadable request body: " + reason);
		return handleExceptionInternal(ex, problem, headers, status, request);
	}

	/** Names each invalid field, so that the client knows what to fix. */
	@Override
	protected ResponseEntity<Object> handleMethodArgumentNotValid(MethodArgumentNotValidException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		String detail = ex.getBindingResult()
			.getFieldErrors()
			.stream()
			.map((error) -> error.getField() + ": " + error.getDefaultMessage())
			.sorted()
			.collect(Collectors.joining("; "));
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		return handleExceptionInternal(ex, problem, headers, status, request);
	}

}

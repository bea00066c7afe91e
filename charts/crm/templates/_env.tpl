{{/*
The environment of each component's container, besides the shared ConfigMap (configmap.yaml) and the
component's own `env` block from values. Every variable named here is read by that component: its
config.ts schema, or the few reads outside it (OTEL_* by the OpenTelemetry SDK, METRICS_PORT by
libs/telemetry, IMPORT_UPLOAD_URL/IMPORT_UPLOAD_SECRET by gateway/src/clients/import-client.ts,
CRM_OPERATOR_TOKEN/CRM_OPERATOR_TLS_DIR/AUTH_GRPC_ADDR by the auth CLI; INTERNAL_TLS_DIR and
GRPC_HEALTH_PORT are spread into config.ts from libs/config), or only feeds a $(VAR) expansion of the same
container. tests/deploy/processes.test.ts checks that on the manifests Helm renders for every value
set, and that every variable a process requires is set.
*/}}

{{/* args: (list $ key) */}}
{{- define "crm.env" -}}
{{- $root := index . 0 }}
{{- $key := index . 1 }}
{{- $topology := include "crm.topology" $root | fromYaml }}
{{- $spec := index $topology $key }}
{{- $args := list $root $spec $topology }}
{{- include "crm.env.telemetry" $args }}
{{- range $callee := $spec.calls }}
{{- /* Every replica of the callee, through its headless Service (services.yaml), balanced call by call. */}}
- name: {{ printf "%s_GRPC_ADDR" (upper $callee) }}
  value: {{ printf "dns:///%s-headless:%v" (include "crm.componentFullname" (list $root (index $topology $callee).name)) (index $topology $callee).ports.grpc | quote }}
{{- end }}
{{- with $spec.ports.grpc }}
- name: GRPC_PORT
  value: {{ . | quote }}
{{- end }}
{{- with $spec.ports.health }}
- name: GRPC_HEALTH_PORT
  value: {{ . | quote }}
{{- end }}
# Its internal certificate (mounted by deployments.yaml from internal-tls.yaml's Secret).
- name: INTERNAL_TLS_DIR
  value: /etc/crm/internal-tls
{{- with $spec.database }}
- name: MONGO_DATABASE
  value: {{ . | quote }}
{{- end }}
{{- range $store := $spec.stores }}
{{- include "crm.storeEnv" (list $root $store ($spec.database | default "")) }}
{{- end }}
{{- include (printf "crm.env.%s" $key) $args }}
{{- end }}

{{/* Tracing resource attributes and the metrics port; args: (list $ $spec $topology). */}}
{{- define "crm.env.telemetry" -}}
{{- $root := index . 0 }}
{{- $spec := index . 1 }}
- name: OTEL_SERVICE_NAME
  value: {{ printf "crm-%s" $spec.name | quote }}
- name: POD_NAME
  valueFrom: { fieldRef: { fieldPath: metadata.name } }
- name: OTEL_RESOURCE_ATTRIBUTES
  value: "k8s.namespace.name={{ $root.Release.Namespace }},k8s.pod.name=$(POD_NAME),service.instance.id=$(POD_NAME)"
{{- if $spec.metrics }}
- name: METRICS_PORT
  value: {{ if $root.Values.metrics.enabled }}{{ $root.Values.metrics.port | quote }}{{ else }}"off"{{ end }}
{{- end }}
{{- end }}

{{/* A key of the generated Secret as an env source; args: (list $ envName key). */}}
{{- define "crm.generatedSecretEnv" -}}
- name: {{ index . 1 }}
  valueFrom:
    secretKeyRef: { name: {{ include "crm.generatedSecretName" (index . 0) }}, key: {{ index . 2 }} }
{{- end }}

{{/* PUBLIC_BASE_URL: publicBaseUrl, or https://<ingress.host> when an ingress is enabled; empty otherwise. */}}
{{- define "crm.publicBaseUrl" -}}
{{- if .Values.publicBaseUrl }}
{{- .Values.publicBaseUrl }}
{{- else if .Values.ingress.enabled }}
{{- printf "https://%s" .Values.ingress.host }}
{{- end }}
{{- end }}

{{/* The gateways' and auth's prefix in Redis: several releases may share one external Redis, and each gets its own keys and invalidation channel. */}}
{{- define "crm.env.rateLimitKeyPrefix" -}}
- name: RATE_LIMIT_KEY_PREFIX
  value: {{ default (printf "crm:%s.%s:" .Release.Namespace .Release.Name) .Values.rateLimit.keyPrefix | quote }}
{{- end }}

{{- define "crm.env.gateway" -}}
{{- $root := index . 0 }}
{{- $spec := index . 1 }}
{{- $topology := index . 2 }}
- name: CRM_PORT
  value: {{ $spec.ports.api | quote }}
- name: SIGNUP_ENABLED
  value: {{ $root.Values.signup.enabled | quote }}
{{ include "crm.env.rateLimitKeyPrefix" $root }}
{{- with include "crm.publicBaseUrl" $root }}
- name: PUBLIC_BASE_URL
  value: {{ . | quote }}
{{- end }}
# The import service's upload endpoint (its `upload` port, mutual TLS), and the secret it requires there.
- name: IMPORT_UPLOAD_URL
  value: {{ printf "https://%s:%v" (include "crm.componentFullname" (list $root $topology.import.name)) $topology.import.ports.upload | quote }}
{{ include "crm.generatedSecretEnv" (list $root "IMPORT_UPLOAD_SECRET" "importUploadSecret") }}
{{- with $root.Values.ingress.trustedProxies }}
# Whose X-Forwarded-For names the client (per-client rate limits behind the ingress).
- name: TRUSTED_PROXIES
  value: {{ join "," . | quote }}
{{- end }}
{{- if $root.Values.tls.terminatedAtIngress }}
- name: TLS_TERMINATED_UPSTREAM
  value: "true"
{{- else if $root.Values.tls.secretName }}
- name: TLS_CERT_FILE
  value: /etc/crm/tls/tls.crt
- name: TLS_KEY_FILE
  value: /etc/crm/tls/tls.key
{{- end }}
{{- end }}

{{- define "crm.env.auth" -}}
{{- $root := index . 0 }}
{{- $spec := index . 1 }}
{{- $tokenSecret := default (include "crm.generatedSecretName" $root) $root.Values.operatorToken.existingSecret }}
{{- $tokenKey := ternary $root.Values.operatorToken.key "operatorToken" (not (empty $root.Values.operatorToken.existingSecret)) }}
- name: AUTH_OPERATOR_TOKEN
  valueFrom:
    secretKeyRef: { name: {{ $tokenSecret }}, key: {{ $tokenKey }} }
# Plan changes are announced on the gateways' invalidation channel: the same prefix as theirs.
{{ include "crm.env.rateLimitKeyPrefix" $root }}
# For the operator CLI run in this pod with kubectl exec (see NOTES.txt): where auth listens, and
# the token (the CLI reads CRM_OPERATOR_TOKEN, the service AUTH_OPERATOR_TOKEN).
- name: AUTH_GRPC_ADDR
  value: {{ printf "127.0.0.1:%v" $spec.ports.grpc | quote }}
- name: CRM_OPERATOR_TOKEN
  valueFrom:
    secretKeyRef: { name: {{ $tokenSecret }}, key: {{ $tokenKey }} }
- name: CRM_OPERATOR_TLS_DIR
  value: /etc/crm/operator-tls
{{- if or $root.Values.jwtPrivateKey.existingSecret $root.Values.jwtPrivateKey.generate }}
- name: AUTH_JWT_PRIVATE_KEY
  valueFrom:
    secretKeyRef:
      name: {{ default (include "crm.generatedSecretName" $root) $root.Values.jwtPrivateKey.existingSecret }}
      key: {{ if $root.Values.jwtPrivateKey.existingSecret }}{{ $root.Values.jwtPrivateKey.key }}{{ else }}jwtPrivateKey{{ end }}
{{- end }}
{{- end }}

{{- define "crm.env.records" -}}
{{- end }}

{{/* The import server: the upload endpoint listens on the pod's address, so it needs the secret. */}}
{{- define "crm.env.import" -}}
{{- $root := index . 0 }}
{{- $spec := index . 1 }}
- name: UPLOAD_HOST
  value: "0.0.0.0"
- name: UPLOAD_PORT
  value: {{ $spec.ports.upload | quote }}
{{ include "crm.generatedSecretEnv" (list $root "UPLOAD_SECRET" "importUploadSecret") }}
{{- end }}

{{/* The import workers serve no upload endpoint (UPLOAD_HOST stays on loopback, no secret needed). */}}
{{- define "crm.env.importWorker" -}}
{{- end }}

{{- define "crm.env.automation" -}}
{{- end }}

{{/* The automation workers send the emails and ask the model for ai_generated ones. */}}
{{- define "crm.env.automationWorker" -}}
{{- $root := index . 0 }}
{{- $email := $root.Values.email }}
{{- $ai := $root.Values.ai }}
{{- with $email.from }}
- name: EMAIL_FROM
  value: {{ . | quote }}
{{- end }}
{{- if $email.smtp.existingSecret }}
- name: SMTP_URL
  valueFrom:
    secretKeyRef: { name: {{ $email.smtp.existingSecret }}, key: {{ $email.smtp.key }} }
{{- else if $email.smtp.url }}
{{ include "crm.generatedSecretEnv" (list $root "SMTP_URL" "smtpUrl") }}
{{- end }}
{{- with $ai.providerUrl }}
- name: AI_PROVIDER_URL
  value: {{ . | quote }}
{{- end }}
{{- with $ai.model }}
- name: AI_MODEL
  value: {{ . | quote }}
{{- end }}
{{- if $ai.apiKey.existingSecret }}
- name: AI_API_KEY
  valueFrom:
    secretKeyRef: { name: {{ $ai.apiKey.existingSecret }}, key: {{ $ai.apiKey.key }} }
{{- else if $ai.apiKey.value }}
{{ include "crm.generatedSecretEnv" (list $root "AI_API_KEY" "aiApiKey") }}
{{- end }}
{{- end }}

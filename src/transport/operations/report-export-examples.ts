/** Example answers of the report export (captured from a test server, times replaced); Redocly checks each. */

export const exportRecordExample = {
  id: 1,
  created_at: '2026-11-23T10:04:00.496Z',
  subject: { kind: 'domain', key: 'xn--bcher-kva.example' },
  event_type: 'observation',
  outcome_code: 'fraud_watch',
  severity: 'high',
  status: '',
  title: 'Card testing',
  summary: 'Many small charges',
  tags: ['carding'],
  namespace: '',
  share_policy: 'clear_share',
  effective_visibility: 'workspace',
  related_subjects: [{ kind: 'ipaddress', key: '198.51.100.7', role: 'source_ip' }],
};

export const exportCsvExample =
  'id,created_at,subject_kind,subject_key,event_type,outcome_code,severity,status,title,summary,tags,namespace,share_policy,effective_visibility,related_subjects\r\n' +
  '1,2026-11-23T10:04:00.496Z,"domain","xn--bcher-kva.example",observation,fraud_watch,high,"","Card testing","Many small charges","carding","",clear_share,workspace,"[{""kind"":""ipaddress"",""key"":""198.51.100.7"",""role"":""source_ip""}]"\r\n';
